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
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_right
from collections.abc import Iterable

from tokenpilot.engine.block_manager import BlockManager
from tokenpilot.engine.metrics import EngineStats, RequestResult, TimeSeries
from tokenpilot.engine.queues import FCFS, QueueDiscipline
from tokenpilot.engine.scheduler import Scheduler
from tokenpilot.engine.sequence import DECODE, FINISHED, REJECTED, EngineConfig, Seq
from tokenpilot.engine.timing import DecodeClock
from tokenpilot.policy.view import InstanceView
from tokenpilot.workload.request import Request

INF_STEPS = 1 << 62


class Engine:
    """A vLLM-like instance over a ``CostModel`` (or anything with its interface)."""

    def __init__(self, cm, config: EngineConfig | None = None, *,
                 queue: QueueDiscipline | None = None, name: str = "engine",
                 num_blocks: int | None = None, window: int | None = -1) -> None:
        cfg = self.cfg = config or EngineConfig()
        self.cm = cm
        self.name = name
        self.window = cm.window if window == -1 else window
        model = getattr(cm, "model", None)
        self.model_name = getattr(model, "name", "")
        self.gpu_name = getattr(getattr(cm, "gpu", None), "name", "")
        model_max = getattr(model, "max_context", None) or 0
        self.max_model_len = cfg.max_model_len or model_max
        blocks = num_blocks if num_blocks is not None else cm.kv_capacity_blocks(cfg.block_size)
        self.bm = BlockManager(blocks, cfg.block_size)
        self.seqs: dict[int, Seq] = {}
        self.sched = Scheduler(cfg, self.bm, queue if queue is not None else FCFS(),
                               self.window, self.seqs)
        self.clock = DecodeClock(cm)
        self.now = 0.0  # when the next iteration starts
        self.s = 0  # index of the next iteration
        self.stats = EngineStats()
        self.series = TimeSeries()
        self.finished: list[Seq] = []
        self.rejected: list[Seq] = []
        # Log of simulated chunks for tokens_by(): start time, first iteration, iterations,
        # and for decode-only runs the batch (n, summed context, growth); n = 0 for a single
        # mixed iteration whose end time is ``t0 + dur``.
        self._log_t0 = array("d")
        self._log_s0 = array("q")
        self._log_k = array("q")
        self._log_n = array("l")
        self._log_ctx = array("q")
        self._log_g = array("l")
        self._log_dur = array("d")
        budget = cfg.max_num_batched_tokens
        self.prefill_tps = budget / max(cm.prefill_time(budget), 1e-12)

    # ---- the fleet-facing API -------------------------------------------------------------
    def add_request(self, req: Request, now: float | None = None) -> bool:
        """Queue ``req`` as arrived at ``now`` (default: its arrival). False if rejected."""
        now = req.arrival if now is None else now
        if req.id in self.seqs:
            raise ValueError(f"request id {req.id} was already added to {self.name}")
        seq = Seq(req)
        self.seqs[req.id] = seq
        total = req.prompt_tokens + req.output_tokens
        sched = self.sched
        if req.prompt_tokens <= 0 or req.output_tokens <= 0:
            seq.reason = "prompt and output must each be at least one token"
        elif self.max_model_len and total > self.max_model_len:
            seq.reason = f"{total} tokens exceed max_model_len {self.max_model_len}"
        elif sched.blocks_for(total) > self.bm.num_blocks:
            seq.reason = (f"{total} tokens need {sched.blocks_for(total)} KV blocks, "
                          f"the instance has {self.bm.num_blocks}")
        if seq.reason:
            seq.state = REJECTED
            self.rejected.append(seq)
            self.stats.rejected += 1
            return False
        if self.cfg.enable_prefix_caching and req.prefix_hashes and self.window is None:
            self._prefix_keys(seq)
        if not sched.has_work() and now > self.now:
            self.now = now  # an idle instance starts on arrival
        sched.queued_prefill += req.prompt_tokens
        sched.nd_rem += req.output_tokens
        sched.waiting.push(req)
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
        if dec.n and not sched.prefilling and not sched.swapped and not len(sched.waiting):
            k = min(dec.next_finish(), dec.next_cap()) - self.s + 1
            return self.now + self.clock.span(dec.n, dec.ctx_sum(self.s), dec.n_unc, k)
        return self.now + self.cm.decode_time(max(dec.n, 1), dec.ctx_sum(self.s))

    def advance_to(self, t: float) -> list[RequestResult]:
        """Simulate every iteration that starts before ``t``; the requests finished meanwhile.

        The last iteration may end after ``t`` (it was already running at ``t``); its results
        are returned with their true times.
        """
        start = len(self.finished)
        self._advance(t)
        return [self.result(q.id) for q in self.finished[start:]]

    def _advance(self, t: float) -> None:
        sched = self.sched
        while self.now < t and sched.has_work():
            self._event(t)
        if self.now < t and t != math.inf and not sched.has_work():
            self.now = t  # idle until t

    def run(self, requests: Iterable[Request]) -> list[RequestResult]:
        """Simulate ``requests`` (sorted by arrival) on this instance alone, to completion."""
        for req in requests:
            self._advance(req.arrival)
            self.add_request(req, req.arrival)
        self._advance(math.inf)
        return self.results()

    def results(self) -> list[RequestResult]:
        """Every request added so far, finished or rejected or not, by id."""
        return [self.result(i) for i in sorted(self.seqs)]

    def result(self, req_id: int) -> RequestResult:
        q = self.seqs[req_id]
        return RequestResult(
            q.id, q.arrival, q.prompt, q.output, q.first_scheduled, q.first_token, q.finish,
            max(q.cached_tokens, 0), tuple(q.preemptions), q.reason)

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
        done = self._iterations_done_by(t)
        tokens = 1
        for s_join, p_join, s_end in seq.segments:
            if s_join > done:
                break
            tokens = p_join + min(done, s_end) - s_join
        return min(tokens, seq.output)

    def _iterations_done_by(self, t: float) -> int:
        i = bisect_right(self._log_t0, t) - 1
        if i < 0:
            return 0
        s0, k, n = self._log_s0[i], self._log_k[i], self._log_n[i]
        t0 = self._log_t0[i]
        if n == 0:
            return s0 + (1 if t >= t0 + self._log_dur[i] else 0)
        ctx, g, budget = self._log_ctx[i], self._log_g[i], t - t0
        j = self.clock.steps_before(n, ctx, g, budget) - 1  # span(j) < budget
        if j + 1 <= k and self.clock.span(n, ctx, g, j + 1) <= budget:
            j += 1
        return s0 + min(j, k)

    # ---- the view -------------------------------------------------------------------------
    def view(self, index: int = 0) -> InstanceView:
        sched, dec, bm = self.sched, self.sched.dec, self.bm
        s = self.s
        n = dec.n
        decode_tps = n / self.cm.decode_time(n, dec.ctx_sum(s)) if n else 0.0
        rem_decode = dec.remaining(s) + sched.nd_rem
        queued = sched.queued_prefill
        # Drain estimate: the prefill backlog at full chunk speed, then the decode backlog at
        # the throughput of a full batch (or of the current one when it is smaller).
        full = max(n, min(self.cfg.max_num_seqs, len(sched.running) + len(sched.waiting)))
        if rem_decode and full:
            avg_ctx = dec.ctx_sum(s) // n if n else 0
            tps = full / self.cm.decode_time(full, avg_ctx * full)
        else:
            tps = 1.0
        drain = queued / self.prefill_tps + rem_decode / tps
        return InstanceView(
            index=index, name=self.name, gpu=self.gpu_name, model=self.model_name,
            num_running=len(sched.running), num_waiting=len(sched.waiting) + len(sched.swapped),
            queued_prefill_tokens=queued, outstanding_tokens=queued + rem_decode,
            kv_blocks_used=bm.used, kv_blocks_total=bm.num_blocks,
            block_size=self.cfg.block_size, max_model_len=self.max_model_len,
            prefill_tokens_per_s=self.prefill_tps, decode_tokens_per_s=decode_tps,
            predicted_drain_s=drain, cached_prefixes=bm.prefixes.keys())

    # ---- the event loop -------------------------------------------------------------------
    def _event(self, horizon: float) -> None:
        sched, dec, bm, stats = self.sched, self.sched.dec, self.bm, self.stats
        s, now = self.s, self.now
        sched.schedule(s, now)
        plan = sched.plan
        n = dec.n
        if not plan and not n:
            raise RuntimeError(f"{self.name}: nothing schedulable at t={now:.6f} (deadlock)")
        ctx = dec.ctx_sum(s)
        stable = (self.cfg.fast and not plan and not sched.preempted and not sched.swap_in)
        if stable:
            # A run of identical decode iterations: as many as no event interrupts.
            k = min(dec.next_finish(), dec.next_cap()) - s + 1
            if k > 1:
                k = 1 + dec.steps_within_blocks(s + 1, bm.available, k - 1)
            if k > 1 and horizon != math.inf:
                k = min(k, self.clock.steps_before(n, ctx, dec.n_unc, horizon - now))
            dt = self.clock.span(n, ctx, dec.n_unc, k)
            if k > 1:
                bm.allocate(dec.blocks_for_steps(s + 1, k - 1))
            if self.clock.compute_bound(n, ctx):
                stats.compute_bound_s += dt
            else:
                stats.memory_bound_s += dt
            log_n = n
        else:
            k = 1
            cost = self.cm.iteration([(c, q.computed) for q, c in plan], n, ctx)
            swap = self.cm.swap_time(sched.swap_in + sched.swap_out) if (
                sched.swap_in or sched.swap_out) else 0.0
            dt = cost.time_s + swap
            stats.swap_s += swap
            stats.swap_in_tokens += sched.swap_in
            stats.swap_out_tokens += sched.swap_out
            if cost.bound == "compute":
                stats.compute_bound_s += cost.time_s
            else:
                stats.memory_bound_s += cost.time_s
            log_n = 0
            on_service = sched.waiting.on_service
            for q, c in plan:
                on_service(q.req, c)
        if self.cfg.record_token_times:
            self._log_t0.append(now)
            self._log_s0.append(s)
            self._log_k.append(k)
            self._log_n.append(log_n)
            self._log_ctx.append(ctx)
            self._log_g.append(dec.n_unc)
            self._log_dur.append(dt)
        t_end = now + dt
        stats.iterations += k
        stats.events += 1
        stats.busy_s += dt
        if n and getattr(sched.waiting, "wants_decode_service", False):
            # Decode tokens go to ``on_decode`` when the discipline tells them apart.
            report = getattr(sched.waiting, "on_decode", None) or sched.waiting.on_service
            for q in sched.running.values():
                if q.state == DECODE and q.s_join <= s:
                    report(q.req, k)
        last = s + k - 1
        done = sched.complete_prefills(s, t_end) if plan else []
        if n and dec.fin and dec.fin[0][0] <= last:
            for q in dec.pop_finished(last):
                sched.finish(q, t_end)
                done.append(q)
        if done:
            self.finished.extend(done)
            stats.finished += len(done)
        self.s = s + k
        self.now = t_end
        if self.cfg.check:
            sched.check(self.s)
        self.series.record(t_end, len(sched.running), len(sched.waiting) + len(sched.swapped),
                           sched.queued_prefill, bm.used)

    def finalize_stats(self) -> EngineStats:
        """The counters, with the scheduler's and block manager's folded in."""
        st, sched, bm = self.stats, self.sched, self.bm
        st.preempt_recompute = sched.preempt_recompute
        st.preempt_swap = sched.preempt_swap
        st.prefix_hit_tokens = bm.hit_tokens
        st.prefix_miss_tokens = bm.miss_tokens
        st.evictions = bm.evictions
        return st

    # ---- prefix keys ----------------------------------------------------------------------
    def _prefix_keys(self, seq: Seq) -> None:
        """Map the request's prefix hashes onto engine blocks: a key per full block covered.

        A block's key chains every prefix hash up to the one covering its last token, plus
        its position, so equal keys mean equal content from the start of the prompt.
        """
        req, bs = seq.req, self.cfg.block_size
        pbt = req.prefix_block_tokens
        hashes = req.prefix_hashes
        covered = min(len(hashes) * pbt, req.prompt_tokens)
        chain, h = [], 0
        for raw in hashes:
            h = hash((h, raw))
            chain.append(h)
        keys, raws = [], []
        for b in range(covered // bs):
            j = ((b + 1) * bs - 1) // pbt
            keys.append(hash((chain[j], b)))
            raws.append(hashes[j])
        seq.keys, seq.raws = keys, raws
