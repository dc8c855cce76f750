"""What the tests share: request, fleet and chat-body builders, a CLI call, a bounded wait.

Imported as ``from builders import ...`` (pytest puts tests/ on sys.path, as for
conftest_llama). One definition each, so a change to ``Request`` or ``InstanceView`` is made
once here, not in every test module that builds one.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import TypeVar

from typer.testing import CliRunner, Result

from tokenpilot.policy.view import InstanceView
from tokenpilot.workload.request import Request

T = TypeVar("T")

# The model start_sims (tokenpilot.gateway.fleet) serves by default.
MODEL = "llama-3.1-8b"


def req(rid: int = 0, prompt: int = 1000, output: int = 100, tenant: str = "default", *,
        hashes: Iterable[int] = (), **kw) -> Request:
    """One request arriving at t=0; ``hashes`` are its prompt's prefix-block hashes."""
    return Request(rid, 0.0, prompt, output, tenant=tenant, prefix_hashes=tuple(hashes), **kw)


def fleet(n: int = 4, **common) -> list[InstanceView]:
    """The views of ``n`` instances named i0, i1, ...; ``common`` sets the same fields on each."""
    return [InstanceView(index=i, name=f"i{i}", **common) for i in range(n)]


def chat(content: str = "hello " * 200, max_tokens: int = 8, **kw) -> dict:
    """An OpenAI chat-completions body; the default prompt is 1,200 characters (~300 tokens at
    the gateway's four characters per token)."""
    return {"model": MODEL, "messages": [{"role": "user", "content": content}],
            "max_tokens": max_tokens, **kw}


def cli(*args: str) -> Result:
    """``tokenpilot ARGS...`` run in this process; the result has exit_code, stdout, stderr."""
    from tokenpilot.cli import app  # here: the modules that only build requests skip its imports

    return CliRunner().invoke(app, list(args))


def wait_until(probe: Callable[[], T], what: str, timeout: float = 5.0,
               interval: float = 0.01) -> T:
    """``probe()``'s first truthy value, asked again every ``interval`` seconds; after
    ``timeout`` seconds the test fails, saying what it waited for and what it saw last.

    For state that changes in another thread or process and signals nothing when it does (a
    server's counters, a llama.cpp server's /metrics). Where the code under test offers an
    event, wait on that instead.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"waited {timeout:g} s for {what}; last saw {value!r}")
        time.sleep(interval)


def fleet_runs(routers: Iterable[str], n: int = 300, fleet: str = "mixed") -> tuple[list, list]:
    """One small Poisson workload simulated under each router (by spec) on a built-in fleet:
    the runs and their metrics (SLO 1 s TTFT, 100 ms TPOT), as the report writers take them."""
    from tokenpilot.cluster import compute_metrics, simulate
    from tokenpilot.cluster.fleet import load_fleet
    from tokenpilot.policy.routers import make_router
    from tokenpilot.workload import poisson

    spec_fleet, reqs = load_fleet(fleet), poisson(20, n=n, prompt=500, output=50)
    sims, metrics = [], []
    for spec in routers:
        sim = simulate(spec_fleet, reqs, make_router(spec), series_interval_s=0.5)
        sim.router = spec
        sims.append(sim)
        metrics.append(compute_metrics(sim, 1.0, 0.1))
    return sims, metrics
