"""Efficiency parameters of the roofline, per accelerator family, read from calibration.yaml."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from functools import cache
from importlib import resources

import yaml


@dataclass(frozen=True)
class Calibration:
    """How far below the datasheet a real engine runs, in a few named numbers.

    flops_eff: fraction of dense peak FLOP/s the linear layers (GEMMs) reach.
    attn_eff: fraction of dense peak FLOP/s attention reaches (lower: softmax, masking, tiling).
    bw_eff: fraction of peak HBM bandwidth reached when streaming weights and KV.
    step_overhead_s: fixed time of one engine iteration (scheduler, kernel launches, sampling).
    seq_overhead_s: extra time per sequence in the iteration (per-sequence bookkeeping, sampling,
        paged-attention metadata); it grows with batch size but not with context.
    allreduce_latency_s: latency of one tensor-parallel all-reduce per log2(tp) (tree/ring
        latency term); two all-reduces per layer per iteration.
    link_eff: fraction of the intra-node link bandwidth an all-reduce reaches (bandwidth term).
    """

    family: str = "default"
    flops_eff: float = 0.6
    attn_eff: float = 0.4
    bw_eff: float = 0.8
    step_overhead_s: float = 0.004
    seq_overhead_s: float = 0.0001
    allreduce_latency_s: float = 0.00005
    link_eff: float = 0.6
    source: str = ""

    def with_(self, **changes: float) -> Calibration:
        return replace(self, **changes)

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


PARAMS = ("flops_eff", "attn_eff", "bw_eff", "step_overhead_s", "seq_overhead_s",
          "allreduce_latency_s", "link_eff")


@cache
def _profiles() -> dict[str, Calibration]:
    text = resources.files("tokenpilot").joinpath("data/calibration.yaml").read_text()
    out: dict[str, Calibration] = {}
    for family, d in yaml.safe_load(text)["families"].items():
        d = dict(d)
        d.pop("fitted_on", None)
        # YAML 1.1 reads 1e-11 (no dot) as a string: every parameter is a number.
        out[family] = Calibration(family=family, **{k: v if k == "source" else float(v)
                                                    for k, v in d.items()})
    return out


def calibration_for(family: str) -> Calibration:
    """The profile for an accelerator family, or the ``default`` profile."""
    profiles = _profiles()
    return profiles.get(family) or replace(profiles["default"], family=family)


def list_families() -> list[str]:
    return list(_profiles())
