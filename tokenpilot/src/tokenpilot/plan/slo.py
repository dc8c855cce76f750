"""What the planner reads from its command line: the SLO, the candidate GPUs, their prices.

``parse_slo("ttft=1s,tpot=100ms,attainment=0.99")``: durations take ``s``, ``ms`` or ``us``
(a bare number is seconds); ``attainment`` is the share of requests that must meet both
latencies (a fraction, or a percentage with ``%``), 0.99 unless given.

Prices are dollars per GPU-hour: the hardware catalog's ``price_per_hour`` unless a prices
file (YAML or JSON, ``{gpu: dollars}``) names the GPU; an instance of ``tp`` GPUs costs ``tp``
times its GPU's price.
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from tokenpilot.catalog import norm
from tokenpilot.config_section import from_mapping, read_text
from tokenpilot.hardware import UnknownGPUError, get_gpu, list_gpus


class PlanError(ValueError):
    """Bad planner input or an impossible plan; the message is one line saying what to do."""


SLO_FORM = "expected ttft=DURATION,tpot=DURATION[,attainment=FRACTION], e.g. ttft=1s,tpot=100ms"
_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6}
_DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:e[-+]?[0-9]+)?)\s*(s|ms|us)?\s*$", re.I)


@dataclass(frozen=True)
class SLO:
    ttft_s: float
    tpot_s: float
    attainment: float = 0.99

    def describe(self) -> str:
        return (f"TTFT <= {_show_s(self.ttft_s)}, TPOT <= {_show_s(self.tpot_s)} for "
                f"{self.attainment:.1%} of requests")


def _show_s(x: float) -> str:
    return f"{x:g}s" if x >= 1 else f"{x * 1e3:g}ms"


def parse_duration(key: str, value: str, spec: str) -> float:
    m = _DURATION.match(value)
    if not m:
        raise PlanError(f"bad --slo {spec!r}: {key}={value!r} is not a duration (1s, 100ms, "
                        f"250us); {SLO_FORM}")
    x = float(m.group(1)) * _UNITS[(m.group(2) or "s").lower()]
    if not 0 < x < math.inf:
        raise PlanError(f"bad --slo {spec!r}: {key} must be positive; {SLO_FORM}")
    return x


@dataclass(frozen=True)
class _SLOText:
    """The keys of an SLO string, read by ``config_section`` like every other section."""

    ttft: str
    tpot: str
    attainment: str = "0.99"


def parse_slo(spec: str) -> SLO:
    """The SLO of a ``--slo`` string (module doc); a bad one raises ``PlanError``."""
    where = f"bad --slo {spec!r}"
    values: dict[str, str] = {}
    for item in spec.split(","):
        key, eq, value = item.partition("=")
        key = key.strip().lower()
        if not eq or not key or not value.strip():
            raise PlanError(f"{where}: expected KEY=VALUE, got {item.strip()!r}; {SLO_FORM}")
        if key in values:
            raise PlanError(f"{where}: {key} given twice")
        values[key] = value.strip()
    try:
        text = from_mapping(_SLOText, values, where, PlanError)
    except PlanError as exc:
        raise PlanError(f"{exc}; {SLO_FORM}") from None
    try:
        attainment = float(text.attainment.rstrip("%")) / (
            100 if text.attainment.endswith("%") else 1)
    except ValueError:
        raise PlanError(f"{where}: attainment={text.attainment!r} is not a number; "
                        f"{SLO_FORM}") from None
    if not 0 < attainment <= 1:
        raise PlanError(f"{where}: attainment must be in (0, 1] (0.99 or 99%), got "
                        f"{text.attainment}")
    return SLO(parse_duration("ttft", text.ttft, spec), parse_duration("tpot", text.tpot, spec),
               attainment)


def _gpu_names() -> list[str]:
    return list_gpus()


def resolve_gpu(name: str) -> str:
    """The catalog name of ``name`` (or of an alias); an unknown one raises ``PlanError``
    naming the nearest known GPU and listing them all."""
    try:
        return get_gpu(name).name
    except UnknownGPUError:
        names = _gpu_names()
        close = difflib.get_close_matches(norm(name), names, n=1, cutoff=0.4)
        hint = f"; nearest: {close[0]}" if close else ""
        raise PlanError(f"unknown GPU {name!r}{hint}; known GPUs: {', '.join(names)}") from None


def parse_list(option: str, text: str) -> list[str]:
    items = [x.strip() for x in text.split(",") if x.strip()]
    if not items:
        raise PlanError(f"{option} needs at least one value")
    return list(dict.fromkeys(items))


def parse_gpus(text: str) -> list[str]:
    return list(dict.fromkeys(resolve_gpu(g) for g in parse_list("--gpus", text)))


def parse_tps(text: str) -> list[int]:
    out = []
    for item in parse_list("--tp", text):
        try:
            tp = int(item)
        except ValueError:
            tp = 0
        if tp < 1:
            raise PlanError(f"--tp takes whole numbers >= 1 separated by commas, got {item!r}")
        out.append(tp)
    return out


def load_prices(path: Path | None) -> dict[str, float]:
    """A prices file (module doc) as ``{catalog GPU name: dollars per GPU-hour}``."""
    if path is None:
        return {}
    text = read_text(Path(path), PlanError)
    try:
        doc = yaml.safe_load(text)  # JSON is YAML
    except yaml.YAMLError as exc:
        raise PlanError(f"cannot read prices file {path}: {str(exc).splitlines()[0]}") from None
    if not isinstance(doc, dict) or not doc:
        raise PlanError(f"prices file {path}: expected a mapping of GPU name to dollars per "
                        "GPU-hour, e.g. 'h100-sxm: 2.99'")
    out = {}
    for name, value in doc.items():
        gpu = resolve_gpu(str(name))
        if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
            raise PlanError(f"prices file {path}: {name}: expected a positive number of dollars "
                            f"per GPU-hour, got {value!r}")
        out[gpu] = float(value)
    return out


def price_of(gpu: str, prices: dict[str, float]) -> float:
    """Dollars per GPU-hour of ``gpu``: the prices file's, else the catalog's."""
    if gpu in prices:
        return prices[gpu]
    price = get_gpu(gpu).price_per_hour
    if price is None:
        raise PlanError(f"GPU {gpu} has no public price in the catalog: give one in a prices "
                        f"file (--prices FILE with '{gpu}: DOLLARS_PER_HOUR')")
    return float(price)
