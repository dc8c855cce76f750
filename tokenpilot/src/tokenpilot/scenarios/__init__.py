"""Named scenarios: each a function ``run_scenario(quick) -> ScenarioResult``.

``tokenpilot scenario NAME`` runs one from the command line; tests and benchmarks call
``run(NAME, quick=...)``. ``quick`` uses small sizes (a few seconds each).
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

from tokenpilot.scenarios import (
    bandwidth_wall,
    fake_balance,
    kv_swap_cliff,
    long_context,
    noisy_tenant,
)
from tokenpilot.scenarios._common import ScenarioResult

_MODULES: tuple[ModuleType, ...] = (fake_balance, long_context, kv_swap_cliff, bandwidth_wall,
                                    noisy_tenant)
try:  # the P/D scenario needs cluster.pd
    from tokenpilot.scenarios import pd_split

    _MODULES += (pd_split,)
except ImportError:  # pragma: no cover - only while pd is being built
    pass

SCENARIOS: dict[str, Callable[[bool], ScenarioResult]] = {
    m.NAME: m.run_scenario for m in _MODULES}
TITLES: dict[str, str] = {m.NAME: m.TITLE for m in _MODULES}


class UnknownScenario(KeyError):
    def __str__(self) -> str:
        return f"unknown scenario {self.args[0]!r}; known: {', '.join(SCENARIOS)}"


def run(name: str, quick: bool = False) -> ScenarioResult:
    """Run the scenario ``name``; ``UnknownScenario`` lists the known ones."""
    fn = SCENARIOS.get(name)
    if fn is None:
        raise UnknownScenario(name)
    return fn(quick)


__all__ = ["SCENARIOS", "TITLES", "ScenarioResult", "UnknownScenario", "run"]
