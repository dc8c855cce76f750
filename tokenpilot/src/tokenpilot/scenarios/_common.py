"""What every scenario shares: the result object, one run, figures over a subset of requests."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tokenpilot.cluster import FleetMetrics, FleetSpec, SimResult, compute_metrics, simulate
from tokenpilot.policy.router import Router
from tokenpilot.workload.request import Request

# Called after each simulation a scenario runs (label, requests, wall seconds): the command
# line's progress lines. Module state, not an argument, so scenarios need not pass it along.
on_run: Callable[[str, int, float], None] | None = None


@dataclass
class ScenarioResult:
    """A scenario's rows (one dict per configuration or load level) and what they mean."""

    name: str
    title: str
    columns: list[str]
    rows: list[dict[str, Any]]
    notes: list[str] = field(default_factory=list)
    # Target checks: name -> passed (only where the issue sets a target).
    checks: dict[str, bool] = field(default_factory=dict)
    quick: bool = False
    # The runs behind the rows, for the HTML report; not part of the JSON.
    sims: list[SimResult] = field(default_factory=list, repr=False)
    metrics: list[FleetMetrics] = field(default_factory=list, repr=False)

    @property
    def missed(self) -> list[str]:
        """The targets this run missed (none are evaluated at quick sizes)."""
        return [] if self.quick else [k for k, ok in self.checks.items() if not ok]

    def to_dict(self) -> dict:
        return {"scenario": self.name, "title": self.title, "quick": self.quick,
                "columns": self.columns, "rows": self.rows, "notes": self.notes,
                "checks": self.checks, "checks_evaluated": not self.quick}

    def table(self) -> str:
        from tokenpilot.report.tables import table

        digits = {c: _digits([r.get(c) for r in self.rows]) for c in self.columns}
        body = table(self.columns, [[_cell(r.get(c), digits[c]) for c in self.columns]
                                    for r in self.rows])
        lines = [f"{self.name}: {self.title}", "", body]
        if self.checks and self.quick:
            lines += ["", "targets not evaluated with --quick (its sizes are too small to "
                      "decide them; run without --quick, with --check to exit on a miss):"]
            lines += [f"  {k} (at quick sizes)" for k in self.checks]
        elif self.checks:
            lines.append("")
            lines += [f"target {'PASS' if ok else 'MISS'}: {k}" for k, ok in self.checks.items()]
        if self.notes:
            lines.append("")
            lines += [f"- {n}" for n in self.notes]
        return "\n".join(lines)


def _digits(values: Sequence[Any]) -> int:
    """Decimals for a column of numbers: one precision per column, enough for its largest
    value to show three significant digits (0 from 100 up, 1 from 10, else 2)."""
    nums = [abs(v) for v in values if isinstance(v, float) and v == v]
    if not nums:
        return 0
    top = max(nums)
    return 0 if top >= 100 else 1 if top >= 10 else 2


def _cell(v: Any, digits: int = 2) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        if v != v:
            return "-"
        return f"{v:.{digits}f}"
    return str(v)


def run(fleet: FleetSpec, requests: Sequence[Request], router: Router, label: str, *,
        slo_ttft: float = 1.0, slo_tpot: float = 0.1, admission: Any = None,
        queue_factory: Callable[[], Any] | None = None, **engine_config: Any,
        ) -> tuple[SimResult, FleetMetrics]:
    """One simulation under ``label`` (the name it carries in tables and the report)."""
    sim = simulate(fleet, requests, router, admission=admission, queue_factory=queue_factory,
                   series_interval_s=0.5, **engine_config)
    sim.router = label
    if on_run is not None:
        on_run(label, len(requests), sim.wall_s)
    return sim, compute_metrics(sim, slo_ttft, slo_tpot)


def subset(sim: SimResult, ids: Iterable[int], slo_ttft: float = 1.0,
           slo_tpot: float = 0.1) -> dict[str, float]:
    """Figures over some requests of a run (a tenant, a size class): latency and throughput.

    ``tok_per_s`` is the subset's output tokens over the span from its first arrival to its
    last finish; ``decode_tps`` the mean per-request decode speed (1 / TPOT).
    """
    rs = [sim.results[i] for i in ids if i in sim.results]
    ok = [r for r in rs if not r.rejected]
    out: dict[str, float] = {"requests": len(rs), "served": len(ok),
                             "rejected": len(rs) - len(ok)}
    if not ok:
        return out | {"ttft_p50": float("nan"), "ttft_p99": float("nan"),
                      "tpot_p50": float("nan"), "tok_per_s": 0.0, "decode_tps": 0.0,
                      "slo_met": 0.0}
    ttft = np.array([r.first_token - r.arrival for r in ok])
    multi = [r for r in ok if r.output_tokens > 1]
    tpot = np.array([(r.finish - r.first_token) / (r.output_tokens - 1) for r in multi])
    span = max(r.finish for r in ok) - min(r.arrival for r in rs)
    good = sum(1 for r in ok if r.first_token - r.arrival <= slo_ttft
               and (r.output_tokens <= 1
                    or (r.finish - r.first_token) / (r.output_tokens - 1) <= slo_tpot))
    return out | {
        "ttft_p50": float(np.percentile(ttft, 50)), "ttft_p99": float(np.percentile(ttft, 99)),
        "tpot_p50": float(np.percentile(tpot, 50)) if tpot.size else float("nan"),
        "tok_per_s": sum(r.output_tokens for r in ok) / span if span > 0 else 0.0,
        "decode_tps": float(np.mean(1 / tpot[tpot > 0])) if (tpot > 0).any() else 0.0,
        "slo_met": good / len(ok),
    }


def merge(*workloads: Sequence[Request]) -> list[Request]:
    """Several workloads as one, sorted by arrival, ids renumbered ``0..n-1``."""
    allr = sorted((r for w in workloads for r in w), key=lambda r: r.arrival)
    return [dataclasses.replace(r, id=k) for k, r in enumerate(allr)]


def ms(x: float) -> float:
    """Seconds to milliseconds for table cells (NaN stays NaN)."""
    return x * 1e3
