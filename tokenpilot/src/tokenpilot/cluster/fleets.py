"""Built-in fleets and workloads, so ``tokenpilot compare`` means something with no files.

Fleets are the same documents a fleet YAML file holds (see ``tokenpilot.cluster.fleet``).
Workloads are spec strings (``tokenpilot.workload.spec``) under a short name.
"""

from __future__ import annotations

_8B = "llama-3.1-8b"

FLEETS: dict[str, dict] = {
    # The default: a mixed generation fleet, where request-count balance is not work balance.
    "mixed": {"name": "mixed", "instances": [
        {"gpu": "h100-sxm", "count": 2, "model": _8B},
        {"gpu": "a100-40gb", "count": 2, "model": _8B},
        {"gpu": "l40s", "count": 4, "model": _8B},
    ]},
    "h100x8": {"name": "h100x8", "instances": [{"gpu": "h100-sxm", "count": 8, "model": _8B}]},
    "l40sx4": {"name": "l40sx4", "instances": [{"gpu": "l40s", "count": 4, "model": _8B}]},
    "h100x64": {"name": "h100x64", "instances": [
        {"gpu": "h100-sxm", "count": 64, "model": _8B}]},
    "70b-tp4": {"name": "70b-tp4", "instances": [
        {"gpu": "h100-sxm", "count": 2, "model": "llama-3.1-70b", "tp": 4}]},
}

WORKLOADS: dict[str, str] = {
    # Bursty chat-like traffic: Gamma inter-arrivals (CV 3), log-normal lengths around the Azure
    # conversation trace's means. The rate is a placeholder: the CLI scales it to --load.
    "bursty": "gamma:rps=10,cv=3,n=3000,prompt=1100,output=220,prompt_cv=1,output_cv=1",
    "steady": "poisson:rps=10,n=3000,prompt=1000,output=200,prompt_cv=0.5,output_cv=0.5",
}

DEFAULT_FLEET = "mixed"
DEFAULT_WORKLOAD = "bursty"
DEFAULT_LOAD = 0.8


def resolve_workload(spec: str) -> str:
    """A built-in workload name's spec string, or ``spec`` itself."""
    name, at, mods = spec.strip().partition("@")
    if name in WORKLOADS:
        base = WORKLOADS[name]
        return f"{base}@{mods}" if at else base
    return spec
