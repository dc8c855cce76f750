"""Workload spec strings: one short string names a whole workload on the command line.

Grammar::

    SPEC    := SOURCE [ "@" MODS ]
    SOURCE  := "azure-conv" | "azure-code" | "mooncake" [ ":jitter=0|1" ]
             | "file:" PATH                      (Azure CSV, Mooncake JSONL or generic CSV/JSONL)
             | GEN ":" PARAMS
    GEN     := "poisson" | "gamma" | "onoff" | "mix" | "prefix" | "tenants"
    PARAMS  := KEY "=" VALUE { "," KEY "=" VALUE }
    MODS    := KEY "=" VALUE { "," KEY "=" VALUE }  with KEY one of
               rate=RPS     scale time so the mean rate is RPS requests/s
               speed=X      divide every arrival by X (2: twice as fast)
               n=N          keep the first N requests (before scaling)
               duration=S   keep requests arriving in the first S seconds (after scaling)
               seed=K       seed of the generator or of Mooncake's jitter (default 0)

Every generator takes ``rps`` and ``n`` and/or ``duration``; the other keys are those of the
function in ``tokenpilot.workload.generators`` (``tenants`` takes ``weights=5/1/1``)::

    poisson:rps=5,n=1000,prompt=1000,output=200,prompt_cv=1
    gamma:rps=5,cv=4,n=1000              bursty: Gamma inter-arrivals, CV 4
    onoff:rps=5,on=10,off=30,duration=600
    mix:rps=5,n=1000,long_frac=0.1,short_prompt=500,long_prompt=16000
    prefix:rps=5,n=1000,groups=8,prefix=4096,suffix=512,skew=1
    tenants:rps=5,n=1000,k=8,skew=1
    azure-conv@rate=20,duration=600      a named trace, sped up to 20 requests/s

The same spec and seed always give the same workload.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tokenpilot.workload import generators
from tokenpilot.workload.errors import WorkloadError
from tokenpilot.workload.loaders import TRACES, load_azure, load_file, load_mooncake, trace_path
from tokenpilot.workload.request import Request
from tokenpilot.workload.transform import scale_time, scale_to_rate, truncate

GENERATORS: dict[str, Callable[..., list[Request]]] = {
    "poisson": generators.poisson,
    "gamma": generators.gamma,
    "onoff": generators.onoff,
    "mix": generators.mix,
    "prefix": generators.prefix_groups,
    "tenants": generators.tenants,
}
MODIFIERS = ("rate", "speed", "n", "duration", "seed")
SPEC_FORMS = (
    "valid workload specs: azure-conv | azure-code | mooncake[:jitter=0] | file:PATH | "
    "poisson:rps=R,n=N[,prompt=P,output=O] | gamma:rps=R,cv=C,n=N | onoff:rps=R,on=S,off=S,n=N | "
    "mix:rps=R,n=N,long_frac=F | prefix:rps=R,n=N,groups=G,prefix=T | tenants:rps=R,n=N,k=K; "
    "any of them may end with @rate=R,speed=X,n=N,duration=S,seed=K"
)
_INT_KEYS = {"n", "seed", "k", "groups", "prefix", "block"}


@dataclass(frozen=True)
class WorkloadSpec:
    """A parsed spec: ``kind`` is a trace name, ``file`` or a generator name."""

    kind: str
    params: dict[str, Any] = field(default_factory=dict)
    path: str = ""
    mods: dict[str, float] = field(default_factory=dict)


def parse_spec(spec: str) -> WorkloadSpec:
    """Parse a spec string; a bad one raises ``WorkloadError`` naming the valid forms."""
    text = spec.strip()
    if not text:
        raise _bad(spec, "empty spec")
    source, mods = text, {}
    at = text.rfind("@")
    if at >= 0 and "/" not in text[at:]:
        source = text[:at]
        mods = {k: _number(spec, k, v, k in _INT_KEYS) for k, v in _pairs(spec, text[at + 1 :])}
        unknown = sorted(set(mods) - set(MODIFIERS))
        if unknown:
            known = ", ".join(MODIFIERS)
            raise _bad(spec, f"unknown modifier {', '.join(unknown)} (known: {known})")
        if "rate" in mods and "speed" in mods:
            raise _bad(spec, "give rate or speed, not both")
    if source.startswith("file:"):
        if not source[5:]:
            raise _bad(spec, "file: needs a path")
        return WorkloadSpec("file", path=source[5:], mods=mods)
    kind, _, rest = source.partition(":")
    if kind in TRACES:
        params = dict(_pairs(spec, rest)) if rest else {}
        allowed = {"jitter"} if kind == "mooncake" else set()
        if set(params) - allowed:
            raise _bad(spec, f"trace {kind} takes {'jitter=0|1' if allowed else 'no parameters'}")
        if "jitter" in params:
            if params["jitter"] not in ("0", "1"):
                raise _bad(spec, "jitter must be 0 or 1")
            params["jitter"] = params["jitter"] == "1"
        return WorkloadSpec(kind, params=params, mods=mods)
    if kind not in GENERATORS:
        raise _bad(spec, f"unknown source {kind!r}")
    return WorkloadSpec(kind, params=_generator_params(spec, kind, rest), mods=mods)


def load_workload(spec: str | WorkloadSpec) -> list[Request]:
    """Build the workload a spec names, sorted by arrival with ids ``0..n-1``."""
    parsed = parse_spec(spec) if isinstance(spec, str) else spec
    mods = parsed.mods
    seed = int(mods.get("seed", 0))
    if parsed.kind == "file":
        requests = load_file(parsed.path, seed=seed)
    elif parsed.kind == "mooncake":
        requests = load_mooncake(trace_path("mooncake"), seed=seed,
                                 jitter=parsed.params.get("jitter", True))
    elif parsed.kind in TRACES:
        requests = load_azure(trace_path(parsed.kind))
    else:
        params = dict(parsed.params)
        if "seed" in mods:
            params["seed"] = seed
        requests = GENERATORS[parsed.kind](**params)
    if "n" in mods:
        requests = truncate(requests, n=int(mods["n"]))
    if "rate" in mods:
        requests = scale_to_rate(requests, mods["rate"])
    elif "speed" in mods:
        if not mods["speed"] > 0:
            raise WorkloadError(f"speed must be positive, got {mods['speed']}")
        requests = scale_time(requests, 1.0 / mods["speed"])
    if "duration" in mods:
        requests = truncate(requests, duration=mods["duration"])
    return requests


def expected_count(spec: str | WorkloadSpec) -> int | None:
    """About how many requests ``spec`` makes, known before making them (to refuse a run that
    would not fit in memory): a generator's ``n`` or ``rps * duration``, a file's size over the
    length of its first lines; None for the built-in traces, whose sizes are fixed."""
    parsed = parse_spec(spec) if isinstance(spec, str) else spec
    count: float | None = None
    if parsed.kind == "file":
        count = _lines_in(Path(parsed.path))
    elif parsed.kind in GENERATORS:
        p = parsed.params
        counts = [p["n"]] if "n" in p else []
        if "duration" in p:
            counts.append(p["rps"] * p["duration"])
        count = min(counts)
    if count is None:
        return None
    if "n" in parsed.mods:
        count = min(count, parsed.mods["n"])
    return max(int(count), 0)


def _lines_in(path: Path, sample: int = 64 << 10) -> int | None:
    """About how many lines ``path`` holds, from the length of those in its first bytes."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as f:
            head = f.read(sample)
    except OSError:
        return None  # the loader says why
    lines = head.count(b"\n") or 1
    return round(size * lines / max(len(head), 1))


def _generator_params(spec: str, kind: str, rest: str) -> dict[str, Any]:
    signature = inspect.signature(GENERATORS[kind])
    known = list(signature.parameters)
    params: dict[str, Any] = {}
    for key, value in _pairs(spec, rest):
        if key not in signature.parameters:
            raise _bad(spec, f"{kind} has no parameter {key!r} (known: {', '.join(known)})")
        default = signature.parameters[key].default
        if key == "weights":
            params[key] = [_number(spec, key, w, False) for w in value.split("/")]
        elif isinstance(default, str):
            params[key] = value
        else:
            params[key] = _number(spec, key, value, key in _INT_KEYS)
    if "rps" not in params:
        raise _bad(spec, f"{kind} needs rps=REQUESTS_PER_SECOND")
    if "n" not in params and "duration" not in params:
        raise _bad(spec, f"{kind} needs n=COUNT or duration=SECONDS")
    return params


def _pairs(spec: str, text: str) -> list[tuple[str, str]]:
    pairs = []
    for item in text.split(","):
        key, eq, value = item.partition("=")
        if not eq or not key.strip() or not value.strip():
            raise _bad(spec, f"expected KEY=VALUE, got {item!r}")
        pairs.append((key.strip(), value.strip()))
    return pairs


def _number(spec: str, key: str, value: str, integer: bool) -> float | int:
    try:
        return int(value) if integer else float(value)
    except ValueError:
        kind = "an integer" if integer else "a number"
        raise _bad(spec, f"{key} must be {kind}, got {value!r}") from None


def _bad(spec: str, why: str) -> WorkloadError:
    return WorkloadError(f"bad workload spec {spec!r}: {why}; {SPEC_FORMS}")
