"""Engine profiles: how vLLM V0, vLLM V1, SGLang and llama.cpp schedule, as data.

``data/engines.yaml`` holds one ``EngineProfile`` per engine, each choice with the source it comes
from; this module reads it (``config_section.from_mapping``) and answers ``get_engine(name)``.
A profile gives an instance (``cluster.fleet.InstanceSpec``, ``engine: NAME``):

- its scheduling: ``prefill_first`` (``never``: prefill chunks share the iteration with the
  decodes; ``always``: an iteration with a prefill stalls every decode; ``unchunked``: so only
  while chunked prefill is off, as in vLLM V0) and whether prompts are chunked;
- its KV pool: ``paged`` (blocks sized from GPU memory, ``gpu_memory_utilization`` of it) or
  ``slots`` (llama.cpp: one buffer of ``max_num_seqs`` slots of ``max_model_len`` tokens each);
- its defaults (``max_num_seqs``, ``max_num_batched_tokens``, ``block_size``, memory knobs), which
  whatever the instance sets overrides;
- its CPU overheads per iteration and per sequence per iteration, added to the GPU family's
  calibration (not to a fitted one, which measured the engine with them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Annotated, Literal

import yaml

from tokenpilot.config_section import (
    Bounds,
    NonNegativeFloat,
    NonNegativeInt,
    PositiveInt,
    choice_error,
    from_mapping,
)
from tokenpilot.costmodel.calibration import Calibration

DEFAULT_ENGINE = "vllm-v1"
V0_MIN_BATCHED_TOKENS = 2048  # vLLM V0's _DEFAULT_MAX_NUM_BATCHED_TOKENS

Fraction = Annotated[float, Bounds(gt=0, le=1)]


class UnknownEngineError(ValueError):
    """No profile of that name; the message lists the known ones."""


@dataclass(frozen=True)
class EngineProfile:
    """One engine's scheduling, KV pool, defaults and overheads (module doc)."""

    description: str
    prefill_first: Literal["never", "always", "unchunked"]
    chunked_prefill: bool
    max_num_seqs: PositiveInt
    max_num_batched_tokens: NonNegativeInt  # 0: max(max_model_len, 2048) (vLLM V0)
    block_size: PositiveInt
    kv_pool: Literal["paged", "slots"]
    enable_prefix_caching: bool
    preemption: Literal["recompute", "swap"]
    gpu_memory_utilization: Fraction
    swap_space_gib: NonNegativeFloat | None
    step_overhead_s: NonNegativeFloat
    seq_overhead_s: NonNegativeFloat
    max_model_len: NonNegativeInt = 0  # 0: the model's context (llama.cpp: its slot's)
    sources: dict[str, str] = field(default_factory=dict, compare=False, hash=False)
    name: str = ""

    def stalls_decodes(self, chunked: bool) -> bool:
        """Whether an iteration with a prefill runs it alone (``EngineConfig.prefill_first``)."""
        return self.prefill_first == "always" or (self.prefill_first == "unchunked"
                                                  and not chunked)

    def batched_tokens(self, max_model_len: int, chunked: bool) -> int:
        """The token budget when the instance sets none: the profile's, or V0's rule."""
        if self.max_num_batched_tokens:
            return self.max_num_batched_tokens
        if chunked:
            return V0_MIN_BATCHED_TOKENS
        return max(max_model_len, V0_MIN_BATCHED_TOKENS)


@cache
def _profiles() -> dict[str, EngineProfile]:
    text = resources.files("tokenpilot").joinpath("data/engines.yaml").read_text()
    doc = yaml.safe_load(text)
    where = "engines.yaml"
    if not isinstance(doc, dict) or not isinstance(doc.get("engines"), dict):
        raise ValueError(f"{where}: expected a mapping 'engines'")
    return {name: from_mapping(EngineProfile, {**d, "name": name}, f"{where}: engines.{name}")
            for name, d in doc["engines"].items()}


def get_engine(name: str) -> EngineProfile:
    """The profile called ``name``; an unknown name raises ``UnknownEngineError``."""
    profiles = _profiles()
    profile = profiles.get(name)
    if profile is None:
        raise UnknownEngineError(choice_error("engine", name, list(profiles)))
    return profile


def engine_names() -> list[str]:
    return list(_profiles())


def with_engine_overheads(profile: EngineProfile, cal: Calibration) -> Calibration:
    """A GPU family's calibration with the engine's CPU overheads added (module doc)."""
    if not (profile.step_overhead_s or profile.seq_overhead_s):
        return cal
    return cal.with_(step_overhead_s=cal.step_overhead_s + profile.step_overhead_s,
                     seq_overhead_s=cal.seq_overhead_s + profile.seq_overhead_s)
