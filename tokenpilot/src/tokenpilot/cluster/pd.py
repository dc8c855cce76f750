"""Prefill/decode disaggregation on top of the ordinary engines.

Instances with ``role: prefill`` run each request's prompt and its first token: the request
goes there with ``output_tokens=1``. Its KV then crosses the link to a ``role: decode``
instance: ``prompt tokens x KV bytes per token / bandwidth`` seconds, over the GPUs'
intra-node link (``hardware`` ``link_gbps``, one direction) or a configurable inter-node
bandwidth. After that delay the request joins a decode instance, which makes the other
``output - 1`` tokens. A router picks the instance at each stage.
The first token is made by the prefill
instance but reaches the user with the stream from the decode side (as in vLLM's
disaggregated proxy), so TTFT = prefill first token + transfer.

Approximation (the engine has no way to add a request with its KV already present, and its
code is not ours to change): the decode instance gets the request with its whole prompt, so
its KV blocks and the context every decode step reads are exact, but it runs on a cost model
wrapper (``LandedKV``) under which prefill chunks cost nothing: an iteration costs what its
decodes cost (or one step overhead if it has none). The prompt's "prefill" there stands for
the KV landing. Effects: the join iteration also yields the request's second token (as the
first decode step after a real transfer would); chunked "prefill" of a long prompt still takes
iterations' token budget (max_num_batched_tokens) on the decode side, so a 32k prompt lands
over several (cheap) iterations. The prefill instance frees the request's KV as soon as its
first token is out (a real one holds it until the transfer ends): prefill-side KV pressure is
slightly understated.
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from tokenpilot.cluster.fleet import FleetError, FleetSpec, build_engines
from tokenpilot.cluster.sim import FleetSim, SimResult
from tokenpilot.engine import Engine, RequestResult
from tokenpilot.policy.router import Router
from tokenpilot.workload.request import Request


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


class _Stage(FleetSim):
    """A FleetSim that hands every finished request to a callback."""

    def __init__(self, engines: list[Engine], router: Router, on_done) -> None:
        super().__init__(engines, router)
        self._on_done = on_done

    def _record(self, r: RequestResult) -> None:
        super()._record(r)
        self._on_done(r)


def simulate_pd(fleet: FleetSpec, requests: Sequence[Request], prefill_router: Router,
                decode_router: Router, link: Link | None = None,
                **engine_config: Any) -> PDResult:
    """Run ``requests`` through the fleet's prefill instances, then its decode instances."""
    link = link or Link()
    pre = FleetSpec(fleet.name + "-prefill", tuple(s for s in fleet.instances
                                                   if s.role == "prefill"))
    dec = FleetSpec(fleet.name + "-decode", tuple(s for s in fleet.instances
                                                  if s.role == "decode"))
    if not pre.instances or not dec.instances:
        raise FleetError("disaggregation needs instances with role: prefill and role: decode")
    engine_config.setdefault("record_token_times", False)
    p_eng = build_engines(pre, **engine_config)
    d_eng = [Engine(LandedKV(e.cm), e.cfg, name=e.name)
             for e in build_engines(dec, **engine_config)]
    by_id = {r.id: r for r in requests}
    out = PDResult(sim=None)  # type: ignore[arg-type]
    pending: list[tuple[float, int]] = []

    def prefilled(r: RequestResult) -> None:
        out.prefill_results[r.id] = r
        req = by_id[r.id]
        if r.rejected or req.output_tokens <= 1:
            return
        i = p_stage.placed[r.id]
        dt = transfer_s(req.prompt_tokens, p_eng[i].cm, link)
        out.transfer[r.id] = dt
        heapq.heappush(pending, (r.finish + dt, r.id))

    p_stage = _Stage(p_eng, prefill_router, prefilled)
    d_stage = _Stage(d_eng, decode_router, lambda r: out.decode_results.__setitem__(r.id, r))

    def hand_over(until: float) -> None:
        while pending and pending[0][0] <= until:
            t, rid = heapq.heappop(pending)
            req = by_id[rid]
            d_stage.arrive(replace(req, arrival=t, output_tokens=req.output_tokens - 1))

    t0 = time.perf_counter()
    for req in requests:
        # Every prefill finishing before this arrival is known after catch_up, so every
        # hand-over due by now can go in, in time order.
        p_stage.catch_up(req.arrival)
        hand_over(req.arrival)
        p_stage.arrive(replace(req, output_tokens=1))
    p_stage.drain()
    hand_over(math.inf)
    d_stage.drain()
    results: dict[int, RequestResult] = {}
    placed: dict[int, int] = {}
    n_p = len(p_eng)
    for req in requests:
        p = out.prefill_results[req.id]
        d = out.decode_results.get(req.id)
        out.prefill_of[req.id] = p_stage.placed.get(req.id, -1)
        if d is not None:
            out.decode_of[req.id] = d_stage.placed[req.id]
            placed[req.id] = n_p + d_stage.placed[req.id]
        elif req.id in p_stage.placed:
            placed[req.id] = p_stage.placed[req.id]
        rej = p.rejected or (d.rejected if d is not None else "")
        results[req.id] = RequestResult(
            req.id, req.arrival, req.prompt_tokens, req.output_tokens, p.first_scheduled,
            p.first_token + out.transfer.get(req.id, 0.0),
            d.finish if d is not None else p.finish, p.cached_tokens,
            p.preemptions + (d.preemptions if d is not None else ()), rej)
    engines = p_eng + d_eng
    out.sim = SimResult(
        fleet=fleet, router=f"pd:{prefill_router.name}/{decode_router.name}",
        names=[e.name for e in engines], gpus=[e.gpu_name for e in engines],
        requests=requests, results=results, placed=placed,
        stats=[e.finalize_stats() for e in engines], series=[e.series for e in engines],
        kv_blocks=[e.bm.num_blocks for e in engines],
        speeds=[1.0] * len(engines), wall_s=time.perf_counter() - t0)
    return out
