"""A plan from end to end: profile, solve, verify, grow; and the reverse question, headroom.

``make_plan`` runs the three steps (``plan.profile``, ``plan.solve``, ``plan.verify``) on a
``Sweep``. Every candidate the MILP gives (its optimum, its next-cheapest alternatives, each
kind's single-type fleet; with ``pd`` the same again for disaggregated pools) is simulated
on the whole workload. Then each is resized and simulated again, for at most ``max_steps``
rounds: a candidate that missed the SLO grows by one instance of its bottleneck kind
(``Verdict.bottleneck``: the most SLO misses per instance); one that met it shrinks by one
instance of its least used kind (the profiles are of one instance alone, and many instances
share bursts better than one, so the MILP's answer can be larger than it needs). A resized
fleet is simulated only while it is cheaper than the cheapest fleet that met the SLO so far
(single-kind fleets: than the cheapest single-kind one, so that the baseline a mixed fleet is
compared with is right-sized the same way). The plan is the cheapest candidate that met the
SLO (of equal costs, the higher attainment).

``headroom`` answers how far a given fleet's workload can grow: the largest scale factor on
the arrival rate (the workload's arrivals compressed by it) at which the fleet still meets
the SLO, found by doubling (or halving) from 1 and then k-section, ``workers`` simulations
per round, to ``HEADROOM_TOL``; and, at the first scale that fails, which kind saturates.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from tokenpilot.cluster.fleet import FleetSpec
from tokenpilot.plan.profile import (
    Bucket,
    Kind,
    ProfilePoint,
    make_buckets,
    profile,
    profile_tasks,
)
from tokenpilot.plan.slo import SLO, PlanError
from tokenpilot.plan.solve import Candidate, RateTable, candidates, check_servable
from tokenpilot.plan.sweep import Sweep
from tokenpilot.plan.verify import DEFAULT_ROUTER, Verdict, VerifyTask, verify
from tokenpilot.workload.request import Request
from tokenpilot.workload.transform import mean_rate

MAX_STEPS = 8
HEADROOM_TOL = 0.05
HEADROOM_RANGE = (1 / 64, 64.0)

Log = Callable[[str], None]


def _quiet(_: str) -> None:
    pass


@dataclass
class Tried:
    """A candidate and its simulation."""

    candidate: Candidate
    verdict: Verdict


@dataclass
class Plan:
    slo: SLO
    rate_rps: float
    tokens_per_request: float
    buckets: list[Bucket]
    points: list[ProfilePoint]
    tried: list[Tried]
    chosen: Tried | None
    timings: dict[str, float] = field(default_factory=dict)

    def per_million_tokens(self, cost_per_hour: float) -> float:
        return cost_per_hour / (self.rate_rps * self.tokens_per_request * 3600 / 1e6)

    def best_single(self) -> Tried | None:
        """The cheapest single-kind fleet that met the SLO (the baseline)."""
        ok = [t for t in self.tried if t.verdict.meets and t.candidate.single_type]
        return min(ok, key=_rank, default=None)


def _rank(t: Tried) -> tuple[float, float]:
    return (round(t.candidate.cost_per_hour, 6), -t.verdict.attainment)


def _ceiling(tried: list[Tried], single: bool) -> float:
    """The cost of the cheapest fleet (single-kind ones only, with ``single``) that met the
    SLO; infinity when none has."""
    return min((t.candidate.cost_per_hour for t in tried if t.verdict.meets
                and (t.candidate.single_type or not single)), default=math.inf)


def _resize(t: Tried, cost_of: dict) -> Candidate | None:
    """The next fleet to try after ``t``: one more instance of the bottleneck if it missed
    the SLO, one fewer of the least used kind if it met it (None: nothing to try)."""
    c, v = t.candidate, t.verdict
    if v.meets:
        if sum(n for _, _, n in c.counts) <= 1:
            return None
        # A kind's last instance may go only if another kind serves its role.
        groups = [g for g in v.groups if g.count > 1
                  or sum(1 for _, role, _ in c.counts if role == g.role) > 1]
        if not groups:
            return None
        idle = min(groups, key=lambda g: (g.misses_per_instance, g.utilisation,
                                          -cost_of[c.counts[g.index][:2]]))
        kind, role, _ = c.counts[idle.index]
        smaller = c.with_one_more(kind, role, -cost_of[(kind, role)], delta=-1)
        note = (f"{c.describe()} met {v.attainment:.2%}: removed 1x {_what(kind, role)} "
                f"(least used: utilisation {idle.utilisation:.0%})")
    else:
        worst = v.bottleneck()
        if worst is None:
            return None
        kind, role, _ = c.counts[worst.index]
        smaller = c.with_one_more(kind, role, cost_of[(kind, role)])
        note = (f"{c.describe()} met {v.attainment:.2%}: added 1x {_what(kind, role)} "
                f"(bottleneck: {worst.misses_per_instance:.0f} SLO misses per instance, "
                f"utilisation {worst.utilisation:.0%})")
    src = c.source if c.source.endswith("resized") else c.source + ", resized"
    return Candidate(smaller.counts, smaller.cost_per_hour, src, (*c.history, note))


def _what(kind: Kind, role: str) -> str:
    return kind.label + ("" if role == "both" else " " + role)


def make_plan(requests: list[Request], slo: SLO, kinds: list[Kind], costs: list[float],
              sweep: Sweep, *, pd: bool = False, router: str = DEFAULT_ROUTER,
              alternatives: int = 2, max_steps: int = MAX_STEPS, seed: int = 0,
              probe_cap: int = 2000, log: Log = _quiet) -> Plan:
    """Profile, solve, verify and grow (module doc)."""
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    rate = mean_rate(requests)
    buckets = make_buckets(requests, seed)
    sides: list = ["both"] + (["prefill", "decode"] if pd else [])
    tasks = profile_tasks(kinds, buckets, slo, sides, seed, probe_cap)
    log(f"profiling {len(kinds)} kinds x {len(buckets)} buckets"
        f"{' x 3 roles' if pd else ''}: {len(tasks)} searches on {sweep.describe()}")
    points = sweep.map(profile, tasks)
    timings["profile_s"] = time.perf_counter() - t0
    colo = RateTable(kinds, buckets, ["both"], points)
    tables = [colo]
    if pd:
        tables.append(RateTable(kinds, buckets, ["prefill", "decode"], points))
    servable = [t for t in tables if not t.unserved()]
    for t in tables:
        if t not in servable:
            side, b = t.unserved()[0]
            log(f"no {'disaggregated' if side != 'both' else 'colocated'} fleet: no candidate "
                f"serves bucket {b.label}{'' if side == 'both' else ' as ' + side} within "
                "the SLO")
    if not servable:
        check_servable(colo, points)  # raises, naming the bucket
    t1 = time.perf_counter()
    cands: list[Candidate] = []
    for table in servable:
        cands += candidates(table, costs, rate, alternatives)
    timings["solve_s"] = time.perf_counter() - t1
    if not cands:
        raise PlanError("infeasible: the MILP found no fleet (no bucket assignment fits)")
    t2 = time.perf_counter()
    cost_of = {(k, role): costs[i] for i, k in enumerate(kinds) for role in ("both", "prefill",
                                                                            "decode")}
    tried: list[Tried] = []
    pending = cands
    for step in range(max_steps + 1):
        log(f"verifying {len(pending)} fleet(s) by simulating {len(requests)} requests"
            + (f" (resizing step {step})" if step else ""))
        verdicts = sweep.map(verify, [VerifyTask(c.fleet(), slo, router) for c in pending],
                             shared=requests)
        round_ = [Tried(c, v) for c, v in zip(pending, verdicts, strict=True)]
        tried += round_
        if step == max_steps:
            break
        done = {t.candidate.counts for t in tried}
        ceiling = _ceiling(tried, single=False)
        single_ceiling = _ceiling(tried, single=True)
        pending = []
        for t in round_:
            nxt = _resize(t, cost_of)
            if nxt is None or nxt.counts in done:
                continue
            if nxt.cost_per_hour < ceiling or (nxt.single_type
                                               and nxt.cost_per_hour < single_ceiling):
                pending.append(nxt)
                done.add(nxt.counts)
        if not pending:
            break
    timings["verify_s"] = time.perf_counter() - t2
    timings["total_s"] = time.perf_counter() - t0
    ok = [t for t in tried if t.verdict.meets]
    chosen = min(ok, key=_rank, default=None)
    tokens = sum(r.prompt_tokens + r.output_tokens for r in requests) / len(requests)
    return Plan(slo, rate, tokens, buckets, points, tried, chosen, timings)


@dataclass
class Headroom:
    fleet: str
    scale: float  # the largest scale found to meet the SLO (0: not even the smallest tried)
    failed_at: float | None  # the smallest scale found to fail (None: none up to the range)
    verdicts: list[Verdict]
    below_range: bool = False
    above_range: bool = False

    def first_failure(self) -> Verdict | None:
        fails = [v for v in self.verdicts if not v.meets]
        return min(fails, key=lambda v: v.scale, default=None)


def headroom(requests: list[Request], fleet: FleetSpec, slo: SLO, sweep: Sweep, *,
             router: str = DEFAULT_ROUTER, tol: float = HEADROOM_TOL,
             log: Log = _quiet) -> Headroom:
    """The scale factor at which ``fleet`` stops meeting ``slo`` (module doc)."""
    w = max(2, sweep.workers)
    seen: dict[float, Verdict] = {}

    def run(scales: list[float]) -> None:
        scales = [s for s in scales if s not in seen]
        log(f"simulating at {', '.join(f'{s:.3g}x' for s in scales)} the workload's rate")
        for v in sweep.map(verify, [VerifyTask(fleet, slo, router, s) for s in scales],
                           shared=requests):
            seen[v.scale] = v

    lo_bound, hi_bound = HEADROOM_RANGE
    run([2.0 ** i for i in range(w)])
    while True:
        meets = sorted(s for s, v in seen.items() if v.meets)
        fails = sorted(s for s, v in seen.items() if not v.meets)
        if not meets:
            s = min(fails) / 2
            if s < lo_bound:
                return Headroom(fleet.describe(), 0.0, min(fails), _sorted(seen),
                                below_range=True)
            run([s / 2.0 ** i for i in range(w)])
            continue
        lo = max(meets)
        above = [s for s in fails if s > lo]
        if not above:
            if lo * 2 > hi_bound:
                return Headroom(fleet.describe(), lo, None, _sorted(seen), above_range=True)
            run([lo * 2.0 ** (i + 1) for i in range(w)])
            continue
        hi = min(above)
        if hi / lo <= 1 + tol:
            return Headroom(fleet.describe(), lo, hi, _sorted(seen))
        ratio = (hi / lo) ** (1 / (w + 1))
        run([lo * ratio ** (i + 1) for i in range(w)])


def _sorted(seen: dict[float, Verdict]) -> list[Verdict]:
    return [seen[s] for s in sorted(seen)]
