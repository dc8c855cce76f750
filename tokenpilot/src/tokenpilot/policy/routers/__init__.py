"""The routers, one per file, and the registry that names them.

``get_router(name, **params)`` builds one; ``make_router(spec)`` builds one from a command-line
string: ``NAME``, ``NAME:key=value,...`` or the path of a composition file (``.yaml``, ``.yml``,
``.json``; see ``tokenpilot.policy.compose``).
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

from tokenpilot.policy.router import Router, RouterError
from tokenpilot.policy.routers.earliest_completion import EarliestCompletionRouter
from tokenpilot.policy.routers.kv_usage import KVUsageRouter
from tokenpilot.policy.routers.least_load import LeastRequestsRouter, LeastTokensRouter
from tokenpilot.policy.routers.power_of_two import PowerOfTwoRouter
from tokenpilot.policy.routers.prefix_affinity import PrefixAffinityRouter
from tokenpilot.policy.routers.random_pick import RandomRouter
from tokenpilot.policy.routers.round_robin import RoundRobinRouter

ROUTERS: dict[str, type[Router]] = {
    cls.name: cls
    for cls in (
        RoundRobinRouter,
        RandomRouter,
        LeastRequestsRouter,
        LeastTokensRouter,
        PowerOfTwoRouter,
        KVUsageRouter,
        PrefixAffinityRouter,
        EarliestCompletionRouter,
    )
}


def get_router(name: str, **params: Any) -> Router:
    """A new router by registry name; unknown names and parameters raise ``RouterError``."""
    cls = ROUTERS.get(name)
    if cls is None:
        raise RouterError(f"unknown router {name!r}; valid routers: {', '.join(ROUTERS)}")
    accepted = inspect.signature(cls.__init__).parameters
    unknown = [k for k in params if k not in accepted]
    if unknown:
        known = ", ".join(p for p in accepted if p != "self") or "none"
        raise RouterError(f"router {name!r} has no parameter {', '.join(unknown)} (known: {known})")
    try:
        return cls(**params)
    except (TypeError, ValueError) as exc:
        raise RouterError(f"router {name!r}: {exc}") from None


def make_router(spec: str) -> Router:
    """A router from ``NAME``, ``NAME:key=value,...`` or a composition file's path."""
    text = spec.strip()
    if text.endswith((".yaml", ".yml", ".json")) or Path(text).is_file():
        from tokenpilot.policy.compose import load_composed  # compose builds on this module

        return load_composed(text)
    name, _, rest = text.partition(":")
    params: dict[str, Any] = {}
    if rest:
        for item in rest.split(","):
            key, eq, value = item.partition("=")
            if not eq:
                raise RouterError(f"bad router spec {spec!r}: expected NAME:key=value,...")
            params[key.strip()] = _value(value.strip())
    return get_router(name, **params)


def _value(text: str) -> Any:
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


__all__ = [
    "ROUTERS",
    "EarliestCompletionRouter",
    "KVUsageRouter",
    "LeastRequestsRouter",
    "LeastTokensRouter",
    "PowerOfTwoRouter",
    "PrefixAffinityRouter",
    "RandomRouter",
    "RoundRobinRouter",
    "get_router",
    "make_router",
]
