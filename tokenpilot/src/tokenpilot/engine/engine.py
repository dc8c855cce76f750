"""One simulated inference instance: the scheduler's decisions timed by the cost model.

Time moves one *event* at a time. An iteration that prefills, swaps, preempts or admits is
simulated on its own; an iteration whose batch is decode only is the first of a run of
identical ones, and the engine jumps over the whole run in closed form, up to the next event:
a request finishes, the batch needs a block that is not free, a sequence's KV reaches the
sliding window, or the caller's horizon (a new arrival) falls before the next iteration starts.
With ``fast=False`` every iteration is simulated one by one and timed by
``CostModel.iteration``: the reference the fast mode is tested against.

Driving it from a fleet simulator::

    engine.add_request(req, now)        # the request is waiting from ``now`` on
    engine.advance_to(t)                # run every iteration that starts before t
    engine.next_event_time()            # when it would next finish something on its own
    engine.view(i)                      # the InstanceView routers see

The queue discipline is ``queue=`` (an object) or ``EngineConfig.queue`` (a name); size-class
isolation (``policy.isolation.IsolationPolicy``) is ``EngineConfig.isolation`` or ``isolation=``.

A little over 400 lines: what is left here after the split (the KV pool's verbs in
``block_manager``, rejection in ``Scheduler.add``, the token-time log in ``timeline``) is the event
loop and the fleet-facing API over the same run state; the profiles' whole-prompt and swap-limit
paths added to both.
"""

from __future__ import annotations

import dataclasses
import gc
import math
from collections.abc import Iterable, Sequence

from tokenpilot.engine.block_manager import BlockManager
from tokenpilot.engine.metrics import EngineStats, RequestResult, TimeSeries, make_result
from tokenpilot.engine.scheduler import Scheduler
from tokenpilot.engine.sequence import DECODE, FINISHED, REJECTED, EngineConfig, Seq
from tokenpilot.engine.timeline import Timeline
from tokenpilot.engine.timing import DecodeClock
from tokenpilot.policy.disciplines import HeapQueue, QueueDiscipline, make_discipline
from tokenpilot.policy.isolation import IsolationPolicy
from tokenpilot.policy.view import InstanceView, make_view
from tokenpilot.workload.request import Request

_NO_PLAN: list[tuple[Seq, int]] = []  # an event without prefill chunks (never appended to)


class Engine:
    """A vLLM-like instance over a ``CostModel`` (or anything with its interface)."""

    def __init__(self, cm, config: EngineConfig | None = None, *,
                 queue: QueueDiscipline | None = None, name: str = "engine",
                 num_blocks: int | None = None, window: int | None = -1,
                 isolation: IsolationPolicy | None = None) -> None:
        cfg = config or EngineConfig()
        if isolation is not None:  # a shorthand for EngineConfig(isolation=...)
            cfg = dataclasses.replace(cfg, isolation=isolation)
        self.cfg = cfg
        self.cm = cm
        self.name = name
        self.window = cm.window if window == -1 else window
        model = getattr(cm, "model", None)
        self.model_name = getattr(model, "name", "")
        self.gpu_name = getattr(getattr(cm, "gpu", None), "name", "")
        model_max = getattr(model, "max_context", None) or 0
        self.max_model_len = cfg.max_model_len or model_max
        blocks = num_blocks if num_blocks is not None else (
            cfg.kv_blocks or cm.kv_capacity_blocks(cfg.block_size))
        self.bm = BlockManager(blocks, cfg.block_size)
        self.seqs: dict[int, Seq] = {}
        self.sched = Scheduler(cfg, self.bm,
                               queue if queue is not None else make_discipline(cfg.queue),
                               self.window, self.seqs, self.max_model_len)
        self.isolation = cfg.isolation  # the scheduler applies it; read here by callers
        self.clock = DecodeClock(cm)
        # When each event ran, for tokens_by().
        self.timeline = Timeline(self.clock)
        self.now = 0.0  # when the next iteration starts
        self.s = 0  # index of the next iteration
        self.stats = EngineStats()
        self.series = TimeSeries()
        self.finished: list[Seq] = []
        self._reported = 0  # finished[:_reported] were returned by advance_to
        self.rejected: list[Seq] = []
        # Settings the event loop reads every time, looked up once.
        self._fast = cfg.fast
        self._record = cfg.record_token_times
        self._check = cfg.check
        # The fast mode times prefill iterations without building the cost report.
        self._timing = getattr(cm, "iteration_timing", None) if cfg.fast else None
        q = self.sched.waiting
        self._report_decode = (getattr(q, "on_decode", None) or q.on_service) if getattr(
            q, "wants_decode_service", False) else None
        # FCFS and priority ignore the service they are told about: skip a call per prefill
        # chunk for them.
        self._report_prefill = None if getattr(type(q), "on_service", None) is \
            HeapQueue.on_service else q.on_service
        # VTC forgets a request's state when it ends (e.g. before all of its output_tokens).
        self._on_finished = getattr(q, "on_finished", None)
        self._version = 0  # bumped whenever the state a view shows may have changed
        self._view: tuple[int, int, InstanceView] | None = None
        self._prefix_caching = cfg.enable_prefix_caching and self.window is None
        iso = cfg.isolation
        self._view_as_short = iso is not None and iso.view_as_short and self.sched.yielding
        budget = cfg.max_num_batched_tokens
        self.prefill_tps = budget / max(cm.prefill_time(budget), 1e-12)
        self.idle_decode_tps = 1.0 / max(cm.decode_time(1, 1), 1e-12)
        self.idle_step_growth = cm.decode_time(2, 2) - cm.decode_time(1, 1)

    # ---- the fleet-facing API -------------------------------------------------------------
    def add_request(self, req: Request, now: float | None = None) -> bool:
        """Queue ``req`` as arrived at ``now`` (default: its arrival). False if rejected."""
        if now is None:
            now = req.arrival
        seqs, rid = self.seqs, req.id
        if rid in seqs:
            raise ValueError(f"request id {rid} was already added to {self.name}")
        seqs[rid] = seq = Seq(req)
        self._version += 1
        sched = self.sched
        idle = not sched.has_work()
        if not sched.add(seq):
            self.rejected.append(seq)
            self.stats.rejected += 1
            return False
        if self._prefix_caching and req.prefix_hashes:
            seq.keys, seq.raws = self.bm.prefix_keys(req.prefix_hashes, req.prefix_block_tokens,
                                                     req.prompt_tokens)
        if idle and now > self.now:
            self.now = now  # an idle instance starts on arrival
        return True

    def next_event_time(self) -> float:
        """When the engine next finishes a request or changes its batch on its own.

        Exact for a decode-only batch; otherwise the start of the next iteration plus a lower
        bound of its time, so that ``advance_to(next_event_time())`` always makes progress.
        Infinite when idle.
        """
        sched = self.sched
        if not sched.has_work():
            return math.inf
        dec = sched.dec
        if dec.n and not sched.prefilling and not sched.swapped and not sched.n_waiting:
            k = min(dec.next_finish(), dec.next_cap()) - self.s + 1
            if k > 0:
                return self.now + self.clock.span(dec.n, dec.ctx_sum(self.s), dec.n_unc, k)
            # A window cap is due at this very step (k <= 0): the state changes within the
            # next iteration, so fall through to its lower bound rather than answer ``now``.
        if sched.prefill_first and (sched.n_waiting or sched.prefilling):
            # The next iteration may run prefills only: no decode batch bounds it from below,
            # a prefill of one token (at least a decode step of one sequence) does.
            return self.now + self.clock.decode_time(1, 0)
        return self.now + self.clock.decode_time(max(dec.n, 1), dec.ctx_sum(self.s))

    def advance_to(self, t: float) -> list[RequestResult]:
        """Simulate every iteration that starts before ``t``; the requests finished meanwhile.

        The last iteration may end after ``t`` (it was already running at ``t``); its results
        are returned with their true times.
        """
        finished = self.finished
        start = len(finished)
        self._advance(t)
        end = self._reported = len(finished)
        if end == start:  # most calls from a fleet loop finish nothing
            return []
        return [_result(q) for q in finished[start:]]

    def _advance(self, t: float) -> None:
        sched, event = self.sched, self._event
        # sched.has_work(), inlined: this test runs once per event.
        while self.now < t and (sched.running or sched.swapped or sched.n_waiting):
            event(t)
        if self.now < t and t != math.inf and not sched.has_work():
            self.now = t  # idle until t

    def run(self, requests: Iterable[Request]) -> list[RequestResult]:
        """Simulate ``requests`` (sorted by arrival) on this instance alone, to completion."""
        # A run allocates a few objects per request and frees almost none until the end, so
        # the cyclic GC would rescan an ever-growing heap for nothing (no cycles are made).
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            advance, add = self._advance, self.add_request
            for req in requests:
                advance(req.arrival)
                add(req, req.arrival)
            advance(math.inf)
            return self.results()
        finally:
            if was_enabled:
                gc.enable()

    def results(self) -> list[RequestResult]:
        """Every request added so far, finished or rejected or not, by id."""
        # ``result`` written out over all requests: a run ends with one call per request.
        seqs, make = self.seqs, make_result
        out: list[RequestResult] = []
        append = out.append
        for i in sorted(seqs):
            q = seqs[i]
            append(make(q.id, q.arrival, q.prompt, q.output, q.first_scheduled, q.first_token,
                        q.finish, q.cached_tokens if q.cached_tokens > 0 else 0,
                        tuple(q.preemptions) if q.preemptions else (), q.reason))
        return out

    def result(self, req_id: int) -> RequestResult:
        return _result(self.seqs[req_id])

    def forget(self, req_id: int) -> None:
        """Drop a finished or rejected request's state. A long-running server calls this once
        it has streamed the request out, so its memory stays bounded."""
        seq = self.seqs.get(req_id)
        if seq is None:
            return
        if seq.state not in (FINISHED, REJECTED):
            raise ValueError(f"request {req_id} is still on {self.name}: finish it first")
        del self.seqs[req_id]

    def abort(self, req_id: int) -> bool:
        """Drop ``req_id`` now, at the end of the iteration in flight, wherever it is: a client
        that went away (vLLM's abort). Its KV is freed and it counts as finished, ``reason``
        "aborted"; False when it had already finished or was never queued here."""
        seq = self.seqs.get(req_id)
        if seq is None or seq.state in (FINISHED, REJECTED):
            return False
        self.sched.abort(seq, self.s, self.now)
        seq.reason = "aborted"
        self.stats.aborted += 1
        self._version += 1
        if self._on_finished is not None:
            self._on_finished(seq.req)
        return True

    def compact(self, t: float) -> None:
        """Forget the token-time log before ``t`` (``tokens_by`` is then exact from ``t`` on
        only) and the finished requests ``advance_to`` has already returned. A server that asks
        only about the present calls this to keep its memory bounded."""
        del self.finished[: self._reported]
        self._reported = 0
        self.timeline.compact(t)

    # ---- streaming ------------------------------------------------------------------------
    def first_token_time(self, req_id: int) -> float:
        """When ``req_id``'s first token was produced (-1 if not yet simulated)."""
        return self.seqs[req_id].first_token

    def tokens_by(self, req_id: int, t: float) -> int:
        """Output tokens ``req_id`` had produced by time ``t`` (from the simulated past)."""
        seq = self.seqs[req_id]
        if seq.first_token < 0 or t < seq.first_token:
            return 0
        if seq.state == FINISHED and t >= seq.finish:
            return seq.output
        if not self.cfg.record_token_times:
            raise RuntimeError("tokens_by needs EngineConfig(record_token_times=True)")
        done = self.timeline.iterations_done_by(t)
        tokens = 1
        for s_join, p_join, s_end in seq.segments:
            if s_join > done:
                break
            tokens = p_join + min(done, s_end) - s_join
        return min(tokens, seq.output)

    # ---- the view -------------------------------------------------------------------------
    def view(self, index: int = 0) -> InstanceView:
        # A fleet asks every instance's view at each routing decision, mostly of instances
        # whose state has not moved since the last ask: reuse the view until it does.
        cached = self._view
        if cached is not None and cached[0] == self._version and cached[1] == index:
            return cached[2]
        v = self._make_view(index)
        self._view = (self._version, index, v)
        return v

    def _make_view(self, index: int) -> InstanceView:
        sched, dec, bm = self.sched, self.sched.dec, self.bm
        s = self.s
        n = dec.n
        # Aggregate decode tokens/s of the batch of every running sequence (those still in
        # prefill decode next), so that a reader's decode_tokens_per_s / num_running is one
        # sequence's rate; when idle, the rate of one sequence alone (a router must not read
        # an idle instance as "speed unknown").
        batch = len(sched.running)
        if batch:
            ctx = dec.ctx_sum(s)
            if sched.prefilling:
                ctx += sum(q.computed for q in sched.prefilling.values())
            step = self.clock.decode_time(batch, ctx)
            decode_tps = batch / step
            growth = self.clock.decode_time(batch + 1, ctx + ctx // batch) - step
            chunk = max(self.cfg.max_num_batched_tokens - batch, 1)
            mixed_tps = chunk / max(self.cm.iteration_time([(chunk, 0)], batch, ctx), 1e-12)
        else:
            decode_tps = self.idle_decode_tps
            growth = self.idle_step_growth
            mixed_tps = self.prefill_tps
        rem_decode = dec.remaining(s) + sched.nd_rem
        queued = sched.queued_prefill
        if self._view_as_short:  # long prefills yield: a short arrival waits one chunk at most
            longs = sched.long_queued
            queued -= longs - min(longs, sched.long_cap)
        # Drain estimate: the prefill backlog at full chunk speed, then the decode backlog at
        # the throughput of a full batch (or of the current one when it is smaller).
        full = max(n, min(self.cfg.max_num_seqs, len(sched.running) + sched.n_waiting))
        if rem_decode and full:
            avg_ctx = dec.ctx_sum(s) // n if n else 0
            tps = full / self.clock.decode_time(full, avg_ctx * full)
        else:
            tps = 1.0
        drain = queued / self.prefill_tps + rem_decode / tps
        swapped_kv = 0
        for q in sched.swapped:  # KV parked in host memory, owed back to the pool
            swapped_kv += q.computed
        return make_view(
            index=index, name=self.name, gpu=self.gpu_name, model=self.model_name, healthy=True,
            num_running=len(sched.running), num_waiting=sched.n_waiting + len(sched.swapped),
            max_num_seqs=self.cfg.max_num_seqs, swapped_kv_tokens=swapped_kv,
            queued_prefill_tokens=queued, outstanding_tokens=queued + rem_decode,
            kv_blocks_used=bm.used, kv_blocks_total=bm.num_blocks,
            block_size=self.cfg.block_size, max_model_len=self.max_model_len,
            prefill_tokens_per_s=self.prefill_tps, mixed_prefill_tokens_per_s=mixed_tps,
            decode_tokens_per_s=decode_tps, decode_step_growth_s=growth, predicted_drain_s=drain,
            cached_prefixes=bm.prefixes.keys(), labels=())

    # ---- the event loop -------------------------------------------------------------------
    def _event(self, horizon: float) -> None:
        # The hot path of every simulation: attribute reads are hoisted into locals, and the
        # decode aggregates (``DecodeSet.n``, ``ctx_sum``), block counts and the usual exits
        # of the small helpers (``next_finish``, ``steps_within_blocks``) are read inline.
        sched, stats, bm = self.sched, self.stats, self.bm
        dec = sched.dec
        s, now = self.s, self.now
        n_unc = dec.n_unc
        need = dec.cnt[(1 - s) % dec.bs] if n_unc else 0
        if (self._fast and need <= bm.free and not sched.prefilling and not sched.swapped
                and not sched.n_waiting and not dec.caps):
            # Only running decodes and the blocks they need are free: what ``schedule`` would
            # decide in its first lines, without the call (half of all events are these). The
            # scheduler's plan and swap figures are not reset: nothing reads them after a run.
            bm.take(need)
            plan = _NO_PLAN
            run = True
            adv = 1  # iterations the decoders advance by (per step of a run)
        else:
            sched.schedule(s, now)
            plan = sched.plan
            n_unc = dec.n_unc  # a preemption may have changed the batch
            run = not plan and self._fast and not sched.preempted and not sched.swap_in
            adv = 1
            if sched.stalled:  # prefills only: the decoders wait (scheduler docstring)
                n_unc = 0
                adv = 0
        n_cap = dec.n_cap if adv else 0
        n = n_unc + n_cap
        if not plan and not n:
            raise RuntimeError(f"{self.name}: nothing schedulable at t={now:.6f} (deadlock)")
        ctx = dec.off_sum + n_unc * s + (n_cap * dec.wtok if n_cap else 0) if n else 0
        if run:
            # A run of identical decode iterations: as many as no event interrupts. The
            # batch's earliest finish is the top of ``dec.fin`` unless that entry is stale.
            top = dec.fin[0]
            q = top[3]
            k = top[0] if q.state == DECODE and q.s_join == top[2] else dec.next_finish()
            if dec.caps:
                k = min(k, dec.next_cap())
            k -= s - 1
            if k > 1 and n_unc:
                free = bm.available
                if free < n_unc * (-(-(k - 1) // dec.bs)):  # else every step's block is free
                    k = 1 + dec.steps_within_blocks(s + 1, free, k - 1)
            # Then only the steps that start before the horizon (the next arrival).
            k, dt, compute = self.clock.decode_run(n, ctx, n_unc, k, horizon - now)
            if k > 1 and n_unc:
                bm.take(dec.blocks_for_steps(s + 1, k - 1))
            busy = dt
            log_n = n
        else:
            k = 1
            if len(plan) == 1:  # the usual case, without a comprehension's call
                q, c = plan[0]
                chunks: Sequence[tuple[int, int]] = ((c, q.computed),)
            else:
                chunks = [(c, q.computed) for q, c in plan]
            if self._timing is not None:
                busy, compute = self._timing(chunks, n, ctx)
            else:  # the reference: the cost model's full report, as a reader would ask it
                cost = self.cm.iteration(chunks, n, ctx)
                busy, compute = cost.time_s, cost.bound == "compute"
            dt = busy
            if sched.swap_in or sched.swap_out:
                swap = self.cm.swap_time(sched.swap_in + sched.swap_out)
                dt += swap
                stats.swap_s += swap
                stats.swap_in_tokens += sched.swap_in
                stats.swap_out_tokens += sched.swap_out
            log_n = 0
            on_service = self._report_prefill
            if on_service is not None:
                for q, c in plan:
                    on_service(q.req, c)
        if compute:
            stats.compute_bound_s += busy
        else:
            stats.memory_bound_s += busy
        if self._record:
            self.timeline.record(now, s, k * adv, log_n, ctx, n_unc, dt)
        t_end = now + dt
        stats.iterations += k
        stats.events += 1
        stats.busy_s += dt
        if n and self._report_decode is not None:
            # Decode tokens go to ``on_decode`` when the discipline tells them apart.
            report = self._report_decode
            for q in sched.running.values():
                if q.state == DECODE and q.s_join <= s:
                    report(q.req, k)
        k *= adv  # decode steps run (0 for a prefill-only iteration)
        last = s + k - 1
        done = sched.complete_prefills(s + k, t_end) if plan else None
        fin = dec.fin
        if n and fin and fin[0][0] <= last:
            popped = dec.pop_finished(last)
            finish = sched.finish
            for q in popped:
                finish(q, t_end)
            done = done + popped if done else popped
        if done:
            self.finished.extend(done)
            stats.finished += len(done)
            if self._on_finished is not None:
                for q in done:
                    self._on_finished(q.req)
        self.s = s + k
        self.now = t_end
        self._version += 1
        if self._check:
            sched.check(self.s)
        series = self.series
        if series.due(t_end):  # asked first: under an interval most events are not sampled
            series.record_if_changed(t_end, (
                len(sched.running), sched.n_waiting + len(sched.swapped),
                sched.queued_prefill, bm.used))

    def finalize_stats(self) -> EngineStats:
        """The counters, with the scheduler's and block manager's folded in."""
        st, sched, bm = self.stats, self.sched, self.bm
        st.preempt_recompute = sched.preempt_recompute
        st.preempt_swap = sched.preempt_swap
        st.swap_fallbacks = sched.swap_fallbacks
        st.prefix_hit_tokens = bm.hit_tokens
        st.prefix_miss_tokens = bm.miss_tokens
        st.evictions = bm.evictions
        return st


def _result(q: Seq) -> RequestResult:
    """The ``RequestResult`` of one sequence as it stands."""
    return make_result(
        q.id, q.arrival, q.prompt, q.output, q.first_scheduled, q.first_token, q.finish,
        q.cached_tokens if q.cached_tokens > 0 else 0,
        tuple(q.preemptions) if q.preemptions else (), q.reason)
