"""Step 2 of a plan: the cheapest instance counts that carry every bucket, as a MILP.

For each pool ``s`` (``both``; or ``prefill`` and ``decode`` with disaggregation), kind ``k``
(GPU type x TP) and bucket ``b`` with demand ``d_b`` requests/s and sustainable rate
``R[s,b,k]`` (``plan.profile``)::

    minimise    sum_{s,k} c_k x[s,k]                       (dollars per hour)
    subject to  sum_k y[s,b,k] = 1                 for every s, b   (each bucket fully served)
                sum_b y[s,b,k] d_b / R[s,b,k] <= x[s,k]   for every s, k   (instances' time)
                x[s,k] integer >= 0,  0 <= y[s,b,k] <= 1,  y = 0 where R = 0

``y`` is the share of a bucket's traffic a kind takes; an instance's time is shared between
buckets in proportion to their load on it (Mélange's formulation). Solved with
``scipy.optimize.milp`` (HiGHS). ``alternatives`` asks for the next cheapest distinct costs
too (each re-solve requires a cost above the previous one), and a kind alone gives a
single-type fleet, the baseline a mixed fleet must beat.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

from tokenpilot.cluster.fleet import FleetSpec
from tokenpilot.plan.profile import Bucket, Kind, ProfilePoint
from tokenpilot.plan.slo import PlanError

ROLES = ("prefill", "decode", "both")
COST_STEP = 1e-3  # dollars per hour: how much dearer the next alternative must be


@dataclass(frozen=True)
class Candidate:
    """A fleet: ``(kind, role, count)`` for each kind in use, its price, where it came from
    (``milp``, ``milp alternative 1``, ``single h100-sxm``; ``..., resized`` once
    ``plan.planner`` resized it) and the resizing steps that led to it (``history``)."""

    counts: tuple[tuple[Kind, str, int], ...]
    cost_per_hour: float
    source: str
    history: tuple[str, ...] = field(default=(), compare=False)

    def describe(self) -> str:
        return " + ".join(f"{n}x {k.label}" + ("" if role == "both" else f" {role}")
                          for k, role, n in self.counts)

    @property
    def kinds(self) -> set[Kind]:
        return {k for k, _, _ in self.counts}

    @property
    def single_type(self) -> bool:
        return len(self.kinds) == 1

    def fleet(self, name: str = "plan") -> FleetSpec:
        return FleetSpec(name, tuple(k.spec(n, role) for k, role, n in self.counts))

    def fleet_doc(self, name: str = "plan") -> dict:
        """The fleet file (YAML) for this candidate: only the keys that differ from defaults."""
        insts = []
        for k, role, n in self.counts:
            d: dict = {"gpu": k.gpu, "count": n, "model": k.model}
            if k.tp != 1:
                d["tp"] = k.tp
            if k.engine != "vllm-v1":
                d["engine"] = k.engine
            if role != "both":
                d["role"] = role
            insts.append(d)
        return {"name": name, "instances": insts}

    def with_one_more(self, kind: Kind, role: str, cost: float, delta: int = 1) -> Candidate:
        """This fleet with ``delta`` more instances of ``kind`` in ``role`` (each ``cost``
        dollars per hour more; negative to remove); a kind left with none is dropped."""
        counts = list(self.counts)
        for j, (k, r, n) in enumerate(counts):
            if k == kind and r == role:
                counts[j] = (k, r, n + delta)
                break
        else:
            counts.append((kind, role, 1))
            counts.sort(key=lambda c: ROLES.index(c[1]))  # prefill pools first, as in cluster.pd
        return Candidate(tuple(c for c in counts if c[2] > 0), self.cost_per_hour + cost,
                         self.source, self.history)


class RateTable:
    """``R[s,b,k]`` from profile points, and the demands."""

    def __init__(self, kinds: list[Kind], buckets: list[Bucket], sides: list[str],
                 points: list[ProfilePoint]) -> None:
        self.kinds, self.buckets, self.sides = kinds, buckets, sides
        self.rate = np.zeros((len(sides), len(buckets), len(kinds)))
        ki = {k: j for j, k in enumerate(kinds)}
        for p in points:
            if p.side in sides:
                self.rate[sides.index(p.side), p.bucket, ki[p.kind]] = p.rate

    def unserved(self, allowed: list[int] | None = None) -> list[tuple[str, Bucket]]:
        """(side, bucket) pairs that no allowed kind can serve within the SLO."""
        cols = allowed if allowed is not None else list(range(len(self.kinds)))
        return [(s, b) for si, s in enumerate(self.sides) for b in self.buckets
                if not (self.rate[si, b.index, cols] > 0).any()]


def solve(table: RateTable, costs: list[float], rate_rps: float, *,
          allowed: list[int] | None = None, min_cost: float | None = None,
          source: str = "milp") -> Candidate | None:
    """The MILP of the module doc; None when it has no solution (a bucket nobody serves, or
    nothing cheaper than ``min_cost`` is left, which cannot happen: there is always a dearer
    fleet, so None means the former)."""
    S, B, K = table.rate.shape
    allowed_set = set(range(K) if allowed is None else allowed)
    demand = np.array([b.share * rate_rps for b in table.buckets])
    nx = S * K
    ny = S * B * K

    def xi(s: int, k: int) -> int:
        return s * K + k

    def yi(s: int, b: int, k: int) -> int:
        return nx + (s * B + b) * K + k

    c = np.zeros(nx + ny)
    for s in range(S):
        for k in range(K):
            c[xi(s, k)] = costs[k]
    lb, ub = np.zeros(nx + ny), np.ones(nx + ny)
    ub[:nx] = np.inf
    rows, lo, hi = [], [], []
    for s in range(S):
        for k in range(K):
            if k not in allowed_set:
                ub[xi(s, k)] = 0
            row = np.zeros(nx + ny)
            row[xi(s, k)] = -1.0
            for b in range(B):
                r = table.rate[s, b, k]
                if r > 0 and k in allowed_set:
                    row[yi(s, b, k)] = demand[b] / r
                else:
                    ub[yi(s, b, k)] = 0
            rows.append(row)
            lo.append(-np.inf)
            hi.append(0.0)
        for b in range(B):
            row = np.zeros(nx + ny)
            for k in range(K):
                row[yi(s, b, k)] = 1.0
            rows.append(row)
            lo.append(1.0)
            hi.append(1.0)
    if min_cost is not None:
        rows.append(c.copy())
        lo.append(min_cost)
        hi.append(np.inf)
    integrality = np.zeros(nx + ny)
    integrality[:nx] = 1
    res = milp(c, constraints=LinearConstraint(np.array(rows), lo, hi),
               integrality=integrality, bounds=Bounds(lb, ub),
               options={"time_limit": 60.0, "mip_rel_gap": 1e-6})
    if res.x is None or res.status not in (0, 1):  # 1: time limit with a feasible point
        return None
    x = np.round(res.x[:nx]).astype(int)
    counts = tuple((table.kinds[k], table.sides[s], int(x[xi(s, k)]))
                   for s in range(S) for k in range(K) if x[xi(s, k)] > 0)
    cost = float(sum(costs[k] * x[xi(s, k)] for s in range(S) for k in range(K)))
    return Candidate(counts, cost, source)


def candidates(table: RateTable, costs: list[float], rate_rps: float,
               alternatives: int = 2) -> list[Candidate]:
    """The MILP's optimum over every kind, up to ``alternatives`` next-cheapest fleets, and
    each kind's single-type optimum where it serves every bucket; distinct fleets only."""
    side = "pd " if table.sides != ["both"] else ""
    out: list[Candidate] = []
    best = solve(table, costs, rate_rps, source=f"{side}milp")
    if best is not None:
        out.append(best)
        cost = best.cost_per_hour
        for a in range(alternatives):
            alt = solve(table, costs, rate_rps, min_cost=cost + COST_STEP,
                        source=f"{side}milp alternative {a + 1}")
            if alt is None:
                break
            out.append(alt)
            cost = alt.cost_per_hour
    for k, kind in enumerate(table.kinds):
        if table.unserved([k]):
            continue
        one = solve(table, costs, rate_rps, allowed=[k], source=f"{side}single {kind.label}")
        if one is not None:
            out.append(one)
    unique: dict[tuple, Candidate] = {}
    for cand in out:  # one fleet found twice keeps both names: "milp = single h100-sxm"
        first = unique.get(cand.counts)
        unique[cand.counts] = cand if first is None else replace(
            first, source=f"{first.source} = {cand.source}")
    return list(unique.values())


def check_servable(table: RateTable, points: list[ProfilePoint]) -> None:
    """Raise ``PlanError`` naming the first bucket no candidate kind serves within the SLO,
    with the best attainment any kind reached on it."""
    missing = table.unserved()
    if not missing:
        return
    side, b = missing[0]
    mine = [p for p in points if p.bucket == b.index and p.side == side]
    best = max(mine, key=lambda p: p.attainment, default=None)
    why = (f"; best: {best.kind.label} at {best.attainment:.1%} ({best.note})"
           if best is not None else "")
    where = "" if side == "both" else f" on the {side} side"
    more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
    raise PlanError(f"infeasible: no candidate GPU meets the SLO even alone for bucket "
                    f"{b.label} ({b.count} requests, {b.share:.1%}){where}{more}{why}; "
                    "loosen the SLO, add a faster GPU to --gpus or a larger --tp")
