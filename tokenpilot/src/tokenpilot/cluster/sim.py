"""The fleet loop: a workload in, a router (and optionally admission) in front, engines below.

Events are request arrivals; between them every engine runs on its own (``Engine.advance_to``
jumps over whole decode runs in closed form). At each arrival at time ``t``:

1. every engine whose next event is due by ``t`` is advanced to ``t``; they come off a heap
   keyed by ``Engine.next_event_time()``, so engines with nothing to do cost nothing. Entries
   go stale when an engine's next event moves (a request was added); a popped entry is used
   only if it still matches the engine's current time. An engine not advanced has no finish
   before ``t`` (its next event is exact for a decode run and a lower bound otherwise), so
   every request that finished before ``t`` has reached ``on_finished`` before the next pick.
2. the views of the engines that changed since the last pick are rebuilt; the others are
   reused (64 fresh views per request would dominate the run time);
3. ``admission.admit(request, views, t)`` when an admission policy is given (rejected
   requests never reach a router or an engine);
4. ``router.pick``; the chosen engine is advanced to ``t`` first, so that a request can
   never be scheduled in an iteration that starts before it arrived; ``add_request``;
   ``router.on_routed``.

A router that declares ``needs_views = False`` (round-robin, random), run without admission,
gets a lagging loop instead: no catch-up and no views; only the picked engine is advanced to
the arrival, so each engine is driven exactly as ``Engine.run`` over its own share would drive
it, and finishes reach ``on_finished`` when their engine is next picked or at the end. Decode
runs are then cut only at an engine's own arrivals, not at every due engine's, so timestamps
can differ from the timely loop's in the last bits of a float (about 1e-15 s).

Finished requests go to ``router.on_finished`` and ``admission.settle``. The run is
deterministic: engines have no randomness, routers draw from their own seeded RNG, and every
tie is broken by instance index.

A fleet with ``role: prefill`` and ``role: decode`` instances runs disaggregated
(``tokenpilot.cluster.pd``): one ``FleetSim`` per side, driven by one clock, the router's copy on
each side. A fleet that simulation cannot honour raises ``FleetError``; it is never run
colocated instead.
"""

from __future__ import annotations

import copy
import dataclasses
import gc
import heapq
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from tokenpilot.cluster.fleet import (
    FleetError,
    FleetSpec,
    build_engines,
    instance_capacity,
    mean_shape,
)
from tokenpilot.engine import Engine, EngineStats, RequestResult, TimeSeries
from tokenpilot.policy.router import Router
from tokenpilot.policy.view import InstanceView
from tokenpilot.workload.request import Request


class AdmissionHook(Protocol):
    """What the loop needs of an admission policy (``tokenpilot.policy.admission.Admission``)."""

    def admit(self, request: Request, views: Sequence[InstanceView], now: float) -> Any: ...

    def settle(self, request: Request, actual_tokens: int, now: float) -> None: ...


class ConservationError(AssertionError):
    """A request finished twice, or on an instance other than the one it was routed to."""


@dataclass
class SimResult:
    """Everything a run leaves behind; ``tokenpilot.cluster.metrics`` turns it into figures."""

    fleet: FleetSpec
    router: str
    names: list[str]
    gpus: list[str]
    requests: Sequence[Request]
    results: dict[int, RequestResult]  # by request id, every request exactly once
    placed: dict[int, int]  # request id -> instance index (absent: rejected by admission)
    stats: list[EngineStats]
    series: list[TimeSeries]
    kv_blocks: list[int]
    # Saturated tokens/s of each instance for the workload's mean shape (for normalising load).
    speeds: list[float]
    wall_s: float = 0.0
    admission_rejected: dict[str, int] = field(default_factory=dict)
    # A disaggregated run: request id -> the prefill instance that made its first token and KV
    # (``placed`` is then the decode instance); both count the request in the per-instance table.
    prefilled_on: dict[int, int] = field(default_factory=dict)


ProgressFn = Callable[[int, int], None]


def simulate(
    fleet: FleetSpec, requests: Sequence[Request], router: Router, *,
    admission: AdmissionHook | None = None, progress: ProgressFn | None = None,
    progress_every: int = 2000, series_interval_s: float = 0.0,
    queue_factory: Callable[[], Any] | None = None, **engine_config: Any,
) -> SimResult:
    """Run ``requests`` (sorted by arrival) through ``fleet`` under ``router`` to the end.

    ``queue_factory`` gives each engine its own queue discipline (default FCFS).
    """
    from tokenpilot.cluster import pd  # pd builds on this module

    if pd.is_disaggregated(fleet):
        if admission is not None or queue_factory is not None:
            what = "an admission policy" if admission is not None else "a queue factory"
            raise FleetError(f"fleet {fleet.name} is disaggregated (role: prefill/decode); "
                             f"its simulation cannot take {what}")
        return pd.simulate_pd(fleet, requests, router, copy.deepcopy(router),
                              progress=progress, progress_every=progress_every,
                              series_interval_s=series_interval_s, **engine_config).sim
    engine_config.setdefault("record_token_times", False)  # the fleet never asks tokens_by
    engines = build_engines(fleet, queue_factory, **engine_config)
    for e in engines:
        e.series.min_interval_s = series_interval_s
    lag = admission is None and not getattr(router, "needs_views", True)
    sim = FleetSim(engines, router, admission, labels=[s.labels for _, s in fleet.expand()],
                   lag=lag)
    t0 = time.perf_counter()
    total = len(requests)
    # A run allocates a few objects per request and frees almost none until the end, so the
    # cyclic GC would rescan an ever-growing heap for nothing (the loop makes no cycles).
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        arrive = sim.arrive
        if progress is None:
            for req in requests:
                arrive(req)
        else:
            for k, req in enumerate(requests):
                arrive(req)
                if k % progress_every == 0:
                    progress(k, total)
        sim.drain()
    finally:
        if was_enabled:
            gc.enable()
    if progress is not None:
        progress(total, total)
    wall = time.perf_counter() - t0
    p, o = mean_shape(requests) if requests else (1.0, 1.0)
    speed_of = {s: instance_capacity(s, p, o) * (p + o) for s in fleet.instances}
    return SimResult(
        fleet=fleet, router=router.name or type(router).__name__,
        names=[e.name for e in engines], gpus=[e.gpu_name for e in engines],
        requests=requests, results=sim.results, placed=sim.placed,
        stats=[e.finalize_stats() for e in engines], series=[e.series for e in engines],
        kv_blocks=[e.bm.num_blocks for e in engines],
        speeds=[speed_of[s] for _, s in fleet.expand()], wall_s=wall,
        admission_rejected=sim.admission_rejected,
    )


class FleetSim:
    """The event loop over ready-made engines (``simulate`` builds them from a fleet).

    With ``lag=True`` (for routers with ``needs_views = False`` and no admission) the loop
    keeps only the picked engine current: it is advanced to each arrival it receives, the
    others wait, and finishes reach ``on_finished`` when their engine is next picked or at
    ``drain``. Each engine then sees exactly what ``Engine.run`` over its own requests would.
    """

    def __init__(self, engines: list[Engine], router: Router,
                 admission: AdmissionHook | None = None,
                 labels: Sequence[tuple[str, ...]] | None = None, *, lag: bool = False) -> None:
        if lag and admission is not None:
            raise ValueError("lag=True needs no admission: admission settles on every finish")
        self.engines = engines
        # Instance labels (fleet file) go into the views, for label-aware routers.
        self._labels = list(labels) if labels and any(labels) else None
        self.router = router
        self.admission = admission
        self.lag = lag
        n = len(engines)
        self._net = [math.inf] * n  # each engine's current next event time
        self._heap: list[tuple[float, int]] = []
        # With lag these views are never rebuilt: a router that needs none reads only
        # ``len(views)`` and ``healthy``, which the simulator never changes.
        self._views: list[InstanceView] = [self._view(i) for i in range(n)]
        self._dirty: set[int] = set()
        self._inflight: dict[int, Request] = {}  # request id -> request; placed[id] is where
        self.results: dict[int, RequestResult] = {}
        self.placed: dict[int, int] = {}
        self.admission_rejected: dict[str, int] = {}
        if lag:
            self.arrive = self._arrive_lagging  # type: ignore[method-assign]

    def _view(self, i: int) -> InstanceView:
        v = self.engines[i].view(i)
        if self._labels is not None and self._labels[i]:
            v = dataclasses.replace(v, labels=self._labels[i])
        return v

    def catch_up(self, t: float) -> None:
        """Advance every engine whose next event is due by ``t`` (step 1 of the module doc)."""
        if self.lag:
            return  # nothing may rely on timely finishes: each engine waits for its next pick
        heap, net = self._heap, self._net
        later = []
        advance = self._advance
        while heap and heap[0][0] <= t:
            et, i = heapq.heappop(heap)
            if et != net[i]:
                continue  # stale: the engine's next event moved since this entry was pushed
            advance(i, t)
            if net[i] <= t:
                later.append(i)  # cannot move before t any more; keep it for later arrivals
        for i in later:
            heapq.heappush(heap, (net[i], i))

    def next_due(self) -> float:
        """The earliest next event of any engine (``math.inf`` when none has work)."""
        heap, net = self._heap, self._net
        while heap and heap[0][0] != net[heap[0][1]]:
            heapq.heappop(heap)  # stale (see catch_up)
        return heap[0][0] if heap else math.inf

    def arrive(self, req: Request) -> None:
        i = self.route(req)
        if i is not None:
            self._place(req, i, req.arrival)

    def route(self, req: Request) -> int | None:
        """Steps 1-4 short of placing: the instance ``req`` goes to, or None if admission
        rejected it (its result is then recorded)."""
        t = req.arrival
        heap = self._heap
        if heap and heap[0][0] <= t:
            self.catch_up(t)
        views = self._views
        dirty = self._dirty
        if dirty:
            view = self._view
            for i in dirty:
                views[i] = view(i)
            dirty.clear()
        if self.admission is not None:
            decision = self.admission.admit(req, views, t)
            if not decision.admitted:
                reason = getattr(decision, "reason", "rejected")
                self.admission_rejected[reason] = self.admission_rejected.get(reason, 0) + 1
                self._record(RequestResult(req.id, t, req.prompt_tokens, req.output_tokens,
                                           rejected=f"admission: {reason}"))
                return None
        return self.router.pick(req, views)

    def _arrive_lagging(self, req: Request) -> None:
        """``arrive`` with ``lag``: no catch-up, no views; only the picked engine moves."""
        t = req.arrival
        i = self.router.pick(req, self._views)
        engine = self.engines[i]
        if engine.now < t:
            done = engine.advance_to(t)
            if done:
                self._finish(i, done)
        self.placed[req.id] = i
        if not engine.add_request(req, t):
            self._record(engine.result(req.id))
            self.router.on_finished(req, i)
            return
        self._inflight[req.id] = req
        self.router.on_routed(req, i)

    def _place(self, req: Request, i: int, t: float) -> None:
        engine = self.engines[i]
        if engine.now < t:  # advance_to(t) is a no-op otherwise
            self._advance(i, t)
        self.placed[req.id] = i
        self._dirty.add(i)
        if not engine.add_request(req, t):
            self._record(engine.result(req.id))
            self.router.on_finished(req, i)
            return
        self._inflight[req.id] = req
        self.router.on_routed(req, i)
        self._reschedule(i)

    def _advance(self, i: int, t: float) -> None:
        engine = self.engines[i]
        before = engine.stats.events
        done = engine.advance_to(t)
        if engine.stats.events != before:
            # Only an event can move the next event time (``add_request`` reschedules itself).
            self._dirty.add(i)
            self._reschedule(i)
        if done:
            self._finish(i, done)

    def _reschedule(self, i: int) -> None:
        t = self.engines[i].next_event_time()
        if t != self._net[i]:
            self._net[i] = t
            if t != math.inf:
                heapq.heappush(self._heap, (t, i))

    def _finish(self, i: int, done: list[RequestResult]) -> None:
        inflight, placed, router, admission = self._inflight, self.placed, self.router, \
            self.admission
        record = self._record
        for r in done:
            req = inflight.pop(r.id, None)
            if req is None or placed[r.id] != i:
                raise ConservationError(f"request {r.id} finished on instance {i} but was "
                                        f"{'not in flight' if req is None else 'routed to'} "
                                        f"{'' if req is None else placed[r.id]}")
            record(r)
            router.on_finished(req, i)
            if admission is not None:
                admission.settle(req, r.prompt_tokens + r.output_tokens, r.finish)

    def _record(self, r: RequestResult) -> None:
        if r.id in self.results:
            raise ConservationError(f"request {r.id} finished twice")
        self.results[r.id] = r

    def drain(self) -> None:
        """Run every engine to completion."""
        for i, engine in enumerate(self.engines):
            done = engine.advance_to(math.inf)
            self._net[i] = math.inf
            if done:
                self._finish(i, done)
        if self._inflight:
            raise ConservationError(f"{len(self._inflight)} requests never finished")
