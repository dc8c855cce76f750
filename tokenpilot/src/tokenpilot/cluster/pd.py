"""Prefill/decode disaggregation on top of the ordinary engines.

Instances with ``role: prefill`` run each request's prompt and its first token: the request
goes there with ``output_tokens=1``. Its KV then crosses the link to a ``role: decode``
instance: ``prompt tokens x KV bytes per token / bandwidth`` seconds, over the GPUs'
intra-node link (``hardware`` ``link_gbps``, one direction) or a configurable inter-node
bandwidth. After that delay the request joins a decode instance, which makes the other
``output - 1`` tokens. A router picks the instance at each stage (each stage has its own).

Backpressure (``backpressure=True``, the default; as in vLLM's disaggregated serving, where
the decode side streams to the user and must find KV room before it takes a request):

- a prefill instance keeps a finished prompt's KV blocks until a decode instance *admits* the
  request (schedules it: it had a batch slot and KV room), not just until the first token;
- the user's first token arrives with the decode side's stream, so TTFT is the later of the
  prefill's first token plus the transfer and the decode instance's admission;
- a prefill instance takes a new request only while its KV pool holds the blocks of the
  prompts it is running, the prompts it is holding, and the new one (an FCFS queue per prefill
  instance in front of it; routers see that queue in the instance's view). So an overloaded
  decode side fills the prefill side's KV with held prompts, new prompts queue, and TTFT
  grows, as it does in real deployments.

``backpressure=False`` is the older, optimistic model: the prefill instance frees the KV at
the first token and TTFT is the prefill's first token plus the transfer, whatever the decode
side's queue.

Approximations (the engine has no way to add a request with its KV already present, and its
code is not ours to change): the decode instance gets the request with its whole prompt, so
its KV blocks and the context every decode step reads are exact, but it runs on a cost model
wrapper (``LandedKV``) under which prefill chunks cost nothing: an iteration costs what its
decodes cost (or one step overhead if it has none). The prompt's "prefill" there stands for
the KV landing. Effects: the join iteration also yields the request's second token (as the
first decode step after a real transfer would); chunked "prefill" of a long prompt still takes
iterations' token budget (max_num_batched_tokens) on the decode side, so a 32k prompt lands
over several (cheap) iterations. The transfer starts when the prompt is done (a push into the
decode side's staging), so when the decode side makes it wait, the wait and the transfer
overlap; a pull after admission would add the transfer once more. The held blocks are the
pool's accounting in front of the prefill engine, not blocks inside it: the engine's own
preemption never evicts a held prompt (a real one would not either: its KV is in flight).

Fleets the simulation cannot honour are errors (``check_fleet``), never a colocated run.
"""

from __future__ import annotations

import heapq
import math
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from tokenpilot.cluster.fleet import (
    FleetError,
    FleetSpec,
    build_engines,
    instance_capacity,
    mean_shape,
)
from tokenpilot.cluster.sim import FleetSim, ProgressFn, SimResult
from tokenpilot.engine import Engine, RequestResult
from tokenpilot.policy.router import Router
from tokenpilot.policy.view import InstanceView
from tokenpilot.workload.request import Request


def is_disaggregated(fleet: FleetSpec) -> bool:
    """Whether any instance has a prefill or decode role (``check_fleet`` says if it can run)."""
    return any(s.role != "both" for s in fleet.instances)


def check_fleet(fleet: FleetSpec) -> None:
    """Raise ``FleetError`` (one line) if the disaggregated simulation cannot honour ``fleet``."""
    roles = [s.role for s in fleet.instances]
    if "both" in roles:
        k = roles.index("both")
        raise FleetError(f"instances[{k}] has role: both beside role: prefill/decode "
                         "instances; a disaggregated fleet needs every instance to be role: "
                         "prefill or role: decode")
    for need, other in (("prefill", "decode"), ("decode", "prefill")):
        if need not in roles:
            raise FleetError(f"a fleet with role: {other} instances needs at least one "
                             f"role: {need} instance to hand requests "
                             f"{'to' if need == 'decode' else 'from'}")
    for key in ("model", "kv_dtype"):
        values = list(dict.fromkeys(getattr(s, key) for s in fleet.instances))
        if len(values) > 1:
            raise FleetError("prefill and decode instances must share the "
                             f"{key} (a decode instance reads the KV a prefill instance made); "
                             f"found {', '.join(values)}")


def capacity(fleet: FleetSpec, requests: Sequence[Request]) -> float:
    """Saturated requests/s of a disaggregated fleet: the slower of its two sides.

    A prefill instance serves ``instance_capacity`` of one-token requests; a decode instance
    the same requests' decode steps alone (``instance_capacity`` less the prefill term, so its
    batch and step are the colocated formula's).
    """
    p, o = mean_shape(requests)
    pre = sum(instance_capacity(s, p, 1) * s.count for s in fleet.instances
              if s.role == "prefill")
    dec = 0.0
    for s in fleet.instances:
        if s.role == "decode":
            cm = s.cost_model()
            footprint = p + o / 2
            batch = max(1, min(s.max_num_seqs, int(cm.kv_capacity_tokens // max(footprint, 1))))
            dec += batch / (max(o - 1, 1) * cm.decode_time(batch, int(batch * footprint))) \
                * s.count
    return min(pre, dec)


class LandedKV:
    """A cost model under which prefill is free (the KV arrives over the link instead)."""

    def __init__(self, cm: Any) -> None:
        self._cm = cm

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cm, name)

    def iteration_timing(self, prefill=(), decode_n: int = 0, decode_ctx_sum: int = 0):
        if decode_n > 0:
            return self._cm.iteration_timing((), decode_n, decode_ctx_sum)
        return max(self._cm.cal.step_overhead_s, 1e-6), False

    def prefill_time(self, tokens: int, context: int = 0) -> float:
        return max(self._cm.cal.step_overhead_s, 1e-6)


@dataclass(frozen=True)
class Link:
    """The KV path from prefill to decode instances."""

    same_node: bool = True  # intra-node GPU link of the prefill GPU, else ``inter_node_gbps``
    inter_node_gbps: float = 50.0  # GB/s one way (400 Gb/s InfiniBand)

    def bytes_per_s(self, gpu: Any) -> float:
        # link_gbps is bidirectional as marketed: one direction carries the KV.
        return (gpu.link_gbps / 2 if self.same_node else self.inter_node_gbps) * 1e9


def transfer_s(prompt_tokens: int, cm: Any, link: Link) -> float:
    """Seconds to move ``prompt_tokens`` of KV from a prefill instance over ``link``."""
    return prompt_tokens * cm.kv_bytes_per_token / link.bytes_per_s(cm.gpu)


@dataclass
class PDResult:
    """A disaggregated run: a ``SimResult`` over all instances plus the stage details."""

    sim: SimResult
    prefill_of: dict[int, int] = field(default_factory=dict)  # request -> prefill instance
    decode_of: dict[int, int] = field(default_factory=dict)  # request -> decode instance
    transfer: dict[int, float] = field(default_factory=dict)  # request -> seconds
    prefill_results: dict[int, RequestResult] = field(default_factory=dict)
    decode_results: dict[int, RequestResult] = field(default_factory=dict)
    # With backpressure: seconds each request's KV was held on its prefill instance (from its
    # first token to its decode admission), and the most KV blocks held on each at once.
    held_s: dict[int, float] = field(default_factory=dict)
    max_held_blocks: list[int] = field(default_factory=list)


class _Stage(FleetSim):
    """A FleetSim that hands every finished request to a callback, and (for the prefill side
    under backpressure) shows each instance's gate queue and held KV in its view."""

    def __init__(self, engines: list[Engine], router: Router, on_done,
                 labels: Sequence[tuple[str, ...]] | None = None) -> None:
        self.gate: _Gate | None = None
        super().__init__(engines, router, labels=labels)
        self._on_done = on_done

    def _record(self, r: RequestResult) -> None:
        super()._record(r)
        self._on_done(r)

    def _view(self, i: int) -> InstanceView:
        v = super()._view(i)
        gate = self.gate
        if gate is None or not (gate.queue[i] or gate.held[i]):
            return v
        queued = sum(r.prompt_tokens for r in gate.queue[i])
        return replace(v, num_waiting=v.num_waiting + len(gate.queue[i]),
                       queued_prefill_tokens=v.queued_prefill_tokens + queued,
                       outstanding_tokens=v.outstanding_tokens + queued,
                       kv_blocks_used=min(v.kv_blocks_total,
                                          v.kv_blocks_used + gate.held_blocks[i]))

    def touch(self, i: int) -> None:
        self._dirty.add(i)


class _Gate:
    """The KV accounting in front of each prefill instance (module doc, backpressure)."""

    def __init__(self, engines: list[Engine]) -> None:
        n = len(engines)
        self.total = [e.bm.num_blocks for e in engines]
        self.block = [e.cfg.block_size for e in engines]
        self.queue: list[deque[Request]] = [deque() for _ in range(n)]
        self.running: list[dict[int, int]] = [{} for _ in range(n)]  # id -> blocks reserved
        self.held: list[dict[int, int]] = [{} for _ in range(n)]  # id -> blocks held
        self.held_blocks = [0] * n
        self.max_held = [0] * n

    def blocks(self, i: int, req: Request) -> int:
        return -(-(req.prompt_tokens + 1) // self.block[i])

    def room(self, i: int, req: Request) -> bool:
        """Whether instance ``i`` can take ``req`` now. An empty instance always can (the
        engine itself rejects a request that can never fit)."""
        used = sum(self.running[i].values()) + self.held_blocks[i]
        return used == 0 or used + self.blocks(i, req) <= self.total[i]

    def hold(self, i: int, rid: int, blocks: int) -> None:
        self.held[i][rid] = blocks
        self.held_blocks[i] += blocks
        self.max_held[i] = max(self.max_held[i], self.held_blocks[i])

    def release(self, i: int, rid: int) -> None:
        self.held_blocks[i] -= self.held[i].pop(rid)


def simulate_pd(fleet: FleetSpec, requests: Sequence[Request], prefill_router: Router,
                decode_router: Router, link: Link | None = None, *, backpressure: bool = True,
                progress: ProgressFn | None = None, progress_every: int = 2000,
                series_interval_s: float = 0.0, **engine_config: Any) -> PDResult:
    """Run ``requests`` (sorted by arrival) through the fleet's prefill instances, then its
    decode instances, both sides in one clock (so the decode side can push back)."""
    check_fleet(fleet)
    link = link or Link()
    pre = FleetSpec(fleet.name + "-prefill", tuple(s for s in fleet.instances
                                                   if s.role == "prefill"))
    dec = FleetSpec(fleet.name + "-decode", tuple(s for s in fleet.instances
                                                  if s.role == "decode"))
    engine_config.setdefault("record_token_times", False)
    p_eng = build_engines(pre, **engine_config)
    d_eng = [Engine(LandedKV(e.cm), e.cfg, name=e.name)
             for e in build_engines(dec, **engine_config)]
    for e in p_eng + d_eng:
        e.series.min_interval_s = series_interval_s
    by_id = {r.id: r for r in requests}
    out = PDResult(sim=None)  # type: ignore[arg-type]
    handovers: list[tuple[float, int]] = []  # (when the KV has crossed, request id)
    finished_at: dict[int, float] = {}  # request id -> its prefill's end
    # Requests handed to each decode instance and not yet admitted there, in arrival order.
    unadmitted: list[deque[int]] = [deque() for _ in d_eng]
    admitted_at: dict[int, float] = {}
    gate = _Gate(p_eng) if backpressure else None
    to_open: dict[int, float] = {}  # prefill instance -> since when its gate may open

    def prefilled(r: RequestResult) -> None:
        out.prefill_results[r.id] = r
        req = by_id[r.id]
        i = p_stage.placed.get(r.id, -1)
        if gate is not None and i >= 0:
            gate.running[i].pop(r.id, None)
            to_open[i] = min(to_open.get(i, r.finish), r.finish)
        if r.rejected or req.output_tokens <= 1:
            return
        dt = transfer_s(req.prompt_tokens, p_eng[i].cm, link)
        out.transfer[r.id] = dt
        finished_at[r.id] = r.finish
        if gate is not None:
            gate.hold(i, r.id, gate.blocks(i, req))
            p_stage.touch(i)
        heapq.heappush(handovers, (r.finish + dt, r.id))

    def decoded(r: RequestResult) -> None:
        out.decode_results[r.id] = r
        if r.rejected:  # the decode side will never take it: the prefill side lets go
            release(r.id, r.arrival)

    def release(rid: int, t: float) -> None:
        if rid in admitted_at:
            return
        admitted_at[rid] = t
        out.held_s[rid] = t - finished_at[rid]
        if gate is not None:
            i = p_stage.placed[rid]
            gate.release(i, rid)
            p_stage.touch(i)
            to_open[i] = min(to_open.get(i, t), t)

    p_stage = _Stage(p_eng, prefill_router, prefilled,
                     [s.labels for _, s in pre.expand()])
    p_stage.gate = gate
    d_stage = _Stage(d_eng, decode_router, decoded, [s.labels for _, s in dec.expand()])
    fcfs = [e.cfg.queue == "fcfs" for e in d_eng]

    def place(req: Request, i: int, t: float) -> None:
        if gate is not None:
            gate.running[i][req.id] = gate.blocks(i, req)
        p_stage._place(req, i, t)

    def open_gates() -> None:
        while to_open:
            i, since = to_open.popitem()
            q = gate.queue[i] if gate is not None else None
            while q and gate is not None and gate.room(i, q[0]):
                req = q.popleft()
                place(req, i, max(since, req.arrival))
            p_stage.touch(i)

    def check_admissions() -> None:
        for j, pending in enumerate(unadmitted):
            if not pending:
                continue
            engine = d_eng[j]
            keep: deque[int] = deque()
            while pending:
                rid = pending.popleft()
                a = engine.result(rid).first_scheduled
                if a >= 0:
                    release(rid, a)
                elif fcfs[j]:  # FCFS admits in arrival order: the rest wait too
                    pending.appendleft(rid)
                    break
                else:
                    keep.append(rid)
            pending.extend(keep)

    t0 = time.perf_counter()
    k, n = 0, len(requests)
    t = -math.inf
    while True:
        nxt = min(requests[k].arrival if k < n else math.inf,
                  handovers[0][0] if handovers else math.inf,
                  p_stage.next_due(), d_stage.next_due())
        if nxt == math.inf:
            break
        # An engine whose next event is due now but did not move (a zero-time lower bound)
        # must still make progress: ask for the next representable instant.
        t = nxt if nxt > t else math.nextafter(t, math.inf)
        p_stage.catch_up(t)
        open_gates()
        while handovers and handovers[0][0] <= t:
            ht, rid = heapq.heappop(handovers)
            req = by_id[rid]
            d_stage.arrive(replace(req, arrival=ht, output_tokens=req.output_tokens - 1))
            j = d_stage.placed.get(rid)
            if j is not None and rid not in admitted_at:
                unadmitted[j].append(rid)
        d_stage.catch_up(t)
        check_admissions()
        open_gates()
        while k < n and requests[k].arrival <= t:
            req = requests[k]
            k += 1
            pre_req = replace(req, output_tokens=1)  # the prefill side makes the first token
            i = p_stage.route(pre_req)
            if i is None:
                continue
            if gate is not None and (gate.queue[i] or not gate.room(i, pre_req)):
                gate.queue[i].append(pre_req)
                p_stage.touch(i)
            else:
                place(pre_req, i, req.arrival)
            if progress is not None and k % progress_every == 0:
                progress(k, n)
    p_stage.drain()
    d_stage.drain()
    check_admissions()
    if gate is not None and any(gate.queue):
        raise RuntimeError("disaggregation: requests left waiting for prefill KV room")
    if progress is not None:
        progress(n, n)
    out.max_held_blocks = list(gate.max_held) if gate is not None else [0] * len(p_eng)
    results: dict[int, RequestResult] = {}
    placed: dict[int, int] = {}
    prefilled_on: dict[int, int] = {}
    n_p = len(p_eng)
    for req in requests:
        p = out.prefill_results[req.id]
        d = out.decode_results.get(req.id)
        out.prefill_of[req.id] = p_stage.placed.get(req.id, -1)
        if d is not None:
            out.decode_of[req.id] = d_stage.placed[req.id]
            placed[req.id] = n_p + d_stage.placed[req.id]
            prefilled_on[req.id] = out.prefill_of[req.id]
        elif req.id in p_stage.placed:
            placed[req.id] = p_stage.placed[req.id]
        rej = p.rejected or (d.rejected if d is not None else "")
        first = p.first_token + out.transfer.get(req.id, 0.0)
        if backpressure and d is not None and not d.rejected:
            first = max(first, admitted_at[req.id])
        results[req.id] = RequestResult(
            req.id, req.arrival, req.prompt_tokens, req.output_tokens, p.first_scheduled,
            first, d.finish if d is not None else p.finish, p.cached_tokens,
            p.preemptions + (d.preemptions if d is not None else ()), rej)
    engines = p_eng + d_eng
    p_mean, o_mean = mean_shape(requests) if requests else (1.0, 1.0)
    speeds = [instance_capacity(s, p_mean, 1) * (p_mean + 1) for _, s in pre.expand()]
    speeds += [instance_capacity(s, p_mean, o_mean) * (p_mean + o_mean)
               for _, s in dec.expand()]
    out.sim = SimResult(
        fleet=fleet, router=f"pd:{prefill_router.name}/{decode_router.name}",
        names=[e.name for e in engines], gpus=[e.gpu_name for e in engines],
        requests=requests, results=results, placed=placed,
        stats=[e.finalize_stats() for e in engines], series=[e.series for e in engines],
        kv_blocks=[e.bm.num_blocks for e in engines],
        speeds=speeds, wall_s=time.perf_counter() - t0, prefilled_on=prefilled_on)
    return out
