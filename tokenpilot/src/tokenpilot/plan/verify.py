"""Step 3 of a plan: simulate a candidate fleet on the whole workload, bursts and all.

A ``VerifyTask`` runs the workload (the sweep's shared object), its arrivals compressed by
``scale`` (2: twice the rate), through the candidate's fleet under ``router`` (default
``earliest-completion``: it prices each request on each instance with that instance's own
speeds, which a mixed fleet needs), disaggregated when the candidate has prefill and decode
pools. The verdict has the SLO attainment (``cluster.metrics``), p99 latencies and, per
instance kind, the SLO misses of the requests it served: the kind with the most misses per
instance is the bottleneck, the kind ``grow`` adds one of. Disaggregated, a request that
missed its TTFT counts against its prefill instance, one that missed only its TPOT against
its decode instance.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tokenpilot.cluster import pd
from tokenpilot.cluster.fleet import FleetSpec
from tokenpilot.cluster.metrics import compute_metrics
from tokenpilot.cluster.sim import simulate
from tokenpilot.plan.slo import SLO
from tokenpilot.policy.routers import make_router
from tokenpilot.workload.request import Request
from tokenpilot.workload.transform import scale_time

DEFAULT_ROUTER = "earliest-completion"
SERIES_INTERVAL_S = 10.0  # per-instance samples kept: bounded memory, not plotted here


@dataclass(frozen=True)
class VerifyTask:
    fleet: FleetSpec
    slo: SLO
    router: str = DEFAULT_ROUTER
    scale: float = 1.0


@dataclass
class GroupStats:
    """One entry of a fleet's ``instances`` (a kind in one role) in a run."""

    index: int  # into the fleet's instances
    kind: str
    role: str
    count: int
    requests: int
    misses: int
    utilisation: float  # mean over its instances

    @property
    def misses_per_instance(self) -> float:
        return self.misses / self.count

    def to_dict(self) -> dict:
        return {"kind": self.kind, "role": self.role, "count": self.count,
                "requests": self.requests, "misses": self.misses,
                "utilisation": self.utilisation}


@dataclass
class Verdict:
    fleet: str  # its description
    scale: float
    attainment: float
    target: float
    ttft_p99: float
    tpot_p99: float
    throughput_rps: float
    groups: list[GroupStats] = field(default_factory=list)
    wall_s: float = 0.0

    @property
    def meets(self) -> bool:
        return self.attainment >= self.target

    @property
    def margin(self) -> float:
        """Attainment above (positive) or below the target, in points of share."""
        return self.attainment - self.target

    def bottleneck(self) -> GroupStats | None:
        """The group with the most SLO misses per instance (ties: the busiest); None when no
        request missed."""
        worst = max(self.groups, key=lambda g: (g.misses_per_instance, g.utilisation),
                    default=None)
        return worst if worst is not None and worst.misses > 0 else None


def verify(requests: list[Request], task: VerifyTask) -> Verdict:
    """Simulate ``task.fleet`` on ``requests`` (module doc). A sweep task."""
    fleet, slo = task.fleet, task.slo
    reqs = requests if task.scale == 1.0 else scale_time(requests, 1.0 / task.scale)
    prefill_of: dict[int, int] | None = None
    if pd.is_disaggregated(fleet):
        out = pd.simulate_pd(fleet, reqs, make_router(task.router), make_router(task.router),
                             series_interval_s=SERIES_INTERVAL_S)
        sim, prefill_of = out.sim, out.prefill_of
    else:
        sim = simulate(fleet, reqs, make_router(task.router),
                       series_interval_s=SERIES_INTERVAL_S)
    m = compute_metrics(sim, slo.ttft_s, slo.tpot_s)
    # Which instance each request's miss counts against (module doc).
    n_inst = len(sim.names)
    misses = np.zeros(n_inst)
    served = np.zeros(n_inst)
    for rid, r in sim.results.items():
        home = sim.placed.get(rid, -1)  # disaggregated: its decode instance
        pre = prefill_of.get(rid, -1) if prefill_of is not None else -1
        for i in {home, pre} - {-1}:
            served[i] += 1
        late_first = bool(r.rejected) or r.first_token - r.arrival > slo.ttft_s
        if late_first or r.tpot > slo.tpot_s:
            blame = pre if late_first and pre >= 0 else home
            if blame >= 0:
                misses[blame] += 1
    # The run's instances: in file order, or disaggregated the prefill ones first (cluster.pd).
    order = list(range(len(fleet.instances)))
    if prefill_of is not None:
        order.sort(key=lambda j: fleet.instances[j].role != "prefill")
    start, k = {}, 0
    for j in order:
        start[j] = k
        k += fleet.instances[j].count
    groups = []
    for j, spec in enumerate(fleet.instances):
        idx = list(range(start[j], start[j] + spec.count))
        groups.append(GroupStats(
            index=j, kind=spec.gpu + (f" TP{spec.tp}" if spec.tp > 1 else ""), role=spec.role,
            count=spec.count, requests=int(served[idx].sum()),
            misses=int(misses[idx].sum()),
            utilisation=float(np.mean([m.instances[i].utilisation for i in idx]))))
    return Verdict(fleet.describe(), task.scale, m.slo_attainment, slo.attainment, m.ttft["p99"],
                   m.tpot["p99"], m.throughput_rps, groups, sim.wall_s)
