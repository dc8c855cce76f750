"""PROFILE.yaml: a fitted calibration, the instance kind it was fitted on, and how the fit went.

::

    gpu: epyc-milan-core          # the hardware entry the efficiencies are fractions of
    model: smollm2-135m
    calibration:                  # tokenpilot.costmodel.Calibration's fields
      flops_eff: 0.41
      bw_eff: 0.33
      step_overhead_s: 0.0021
      ...
    fit: {...}                    # what was fitted on which logs, residuals, what was identified

``tokenpilot simulate --calibration PROFILE.yaml`` and ``tokenpilot cost --calibration ...`` read
the ``calibration`` section; a fleet file's instance may name one (``calibration: PROFILE.yaml``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from tokenpilot.config_section import from_mapping
from tokenpilot.costmodel import Calibration

if TYPE_CHECKING:
    from tokenpilot.cluster.fleet import FleetSpec


class ProfileError(ValueError):
    """A profile file is missing or malformed; the message names the file and the key."""


@dataclass(frozen=True)
class Profile:
    calibration: Calibration
    gpu: str = ""
    model: str = ""
    fit: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


def load_profile(path: str | Path) -> Profile:
    """Read a profile file (cached while the file is unchanged)."""
    p = Path(path)
    try:
        mtime = os.stat(p).st_mtime_ns
    except OSError as exc:
        raise ProfileError(f"calibration profile {p}: {exc.strerror or exc}") from None
    return _load(str(p), mtime)


@cache
def _load(path: str, _mtime: int) -> Profile:
    try:
        doc = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ProfileError(f"cannot read calibration profile {path}: {first}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("calibration"), dict):
        raise ProfileError(f"{path}: not a calibration profile (no 'calibration' mapping; "
                           "write one with tokenpilot calibrate --fit)")
    cal = from_mapping(Calibration, doc["calibration"], f"{path}: calibration", ProfileError)
    for name in ("flops_eff", "attn_eff", "bw_eff", "link_eff"):
        if not 0 < getattr(cal, name) <= 1:
            raise ProfileError(f"{path}: calibration.{name} must be in (0, 1], got "
                               f"{getattr(cal, name)}")
    for name in ("step_overhead_s", "seq_overhead_s", "allreduce_latency_s"):
        if getattr(cal, name) < 0:
            raise ProfileError(f"{path}: calibration.{name} must be >= 0, got "
                               f"{getattr(cal, name)}")
    fit = doc.get("fit") if isinstance(doc.get("fit"), dict) else {}
    return Profile(cal, str(doc.get("gpu") or ""), str(doc.get("model") or ""), fit)


def with_profile(fleet: FleetSpec, path: str | Path) -> tuple[FleetSpec, list[str]]:
    """``fleet`` with every instance simulated under the profile at ``path``, and warnings.

    The efficiencies are fractions of one accelerator's datasheet figures, so an instance of
    another GPU than the profile's gets a warning (the profile still applies: the caller asked).
    """
    profile = load_profile(path)
    warnings = [f"{path} was fitted on {profile.gpu}; instances of {s.gpu} use it too"
                for s in fleet.instances if profile.gpu and s.gpu != profile.gpu]
    insts = tuple(replace(s, calibration=str(path)) for s in fleet.instances)
    return replace(fleet, instances=insts), list(dict.fromkeys(warnings))


def resolve_profile_paths(doc: Any, base: Path, section: str) -> Any:
    """``doc`` with the relative ``calibration:`` paths of its ``section`` list (a fleet's
    ``instances``, a gateway's ``backends``) made relative to ``base``, the file's folder."""
    if not isinstance(doc, dict) or not isinstance(doc.get(section), list):
        return doc
    items = [{**d, "calibration": str(base / d["calibration"])}
             if isinstance(d, dict) and isinstance(d.get("calibration"), str)
             and d["calibration"] and not Path(d["calibration"]).is_absolute() else d
             for d in doc[section]]
    return {**doc, section: items}


def write_profile(path: str | Path, profile: Profile) -> None:
    """Write ``profile`` as YAML (the whole file at once: a failed write leaves no half file)."""
    doc = {"gpu": profile.gpu, "model": profile.model,
           "calibration": profile.calibration.to_dict(), "fit": profile.fit}
    text = ("# A tokenpilot calibration profile, written by `tokenpilot calibrate --fit`.\n"
            + yaml.safe_dump(doc, sort_keys=False))
    p = Path(path)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, p)
