"""Continuous batching: which tokens of which requests run in the next iteration.

The order of one ``schedule`` call, and why:

1. Running decodes first, one token each. With ``max_num_batched_tokens >= max_num_seqs`` they
   always fit, so a running request is never starved of its next token by someone's prefill.
2. Running chunked prefills, in admission order, as far as the token budget goes.
3. If the KV cache cannot hold what 1 and 2 need, preempt: the lowest-priority, latest-arrived
   running request goes first (by recompute: drop its KV and requeue it; or by swap: copy its KV
   to host memory). Nothing new is admitted in an iteration that preempted.
4. Swapped-out requests come back before any new request is admitted (they are older).
5. Waiting requests, in the order the queue discipline gives, while sequences, budget and KV
   allow; the first that does not fit stops admission (no overtaking, as in vLLM). With size-
   class isolation (``EngineConfig.isolation``), a long request the policy blocks (the KV and
   slots reserved for short ones) is set aside instead, so the short ones behind it go on.
   Isolation may also cap long requests' prefill chunks, together, at a share of the token
   budget (``IsolationPolicy.long_prefill_share``): an iteration that holds a long chunk stays
   short, and short prefills (running, then admitted, overtaking long ones over the cap) take
   the rest. The cap is strict: under the cost model a long prompt's prefill throughput barely
   depends on its chunk size (attention over its context dominates), so a small chunk costs the
   long request little and keeps every short one's wait to a short iteration. With
   ``long_prefill_yields`` the cap is 0 in an iteration that has other prefill work (a running
   prefill that is not long, or a waiting request not set aside), so a short prompt's own
   iteration carries no chunk over a long context; when the short work it yielded to does not
   run after all (no room, or the waiting requests were long), the cap comes back in the same
   iteration (``_unyield``).

With ``EngineConfig.prefill_first`` (vLLM V0, SGLang) the order is another: unless requests are
swapped out, the running chunked prefills and then the waiting requests (5) are tried first, with
the whole token budget; if any of them runs, the iteration runs only prefills and every decode
*stalls* (the iteration does not count as a decode step: ``s`` does not advance, so a decoder's
``kv = off + s`` stays put). Only when no prefill can run do 1-4 run, without admitting.
Without ``EngineConfig.chunked_prefill`` a prompt waits until it fits the budget whole.

Arrivals come in through ``add``, which also rejects a request that could never run here
(``why_not``). The KV pool is changed only through ``BlockManager``'s verbs (``match``,
``allocate``, ``take``, ``give``, ``register``, ``drop``).

This file is over 400 lines on purpose: it is one class, one state machine (the steps above,
preemption, isolation's set-aside requests, the finish) over the same books (running,
prefilling, swapped, waiting counts, long-class blocks). Split across files, each part would
have to read and write the others' books.
"""

from __future__ import annotations

import math
from bisect import insort
from collections import deque
from heapq import heappop, heappush

from tokenpilot.costmodel.steps import NEVER
from tokenpilot.engine.block_manager import BlockManager
from tokenpilot.engine.decoders import DecodeSet
from tokenpilot.engine.sequence import (
    DECODE,
    FINISHED,
    PREFILL,
    REJECTED,
    SWAPPED,
    WAITING,
    EngineConfig,
    Seq,
)
from tokenpilot.policy.disciplines import FCFS, QueueDiscipline, heap_remove
from tokenpilot.policy.isolation import LONG

OPEN = NEVER  # end of a decode segment still running


def _arrival_order(seq: Seq) -> tuple[float, int]:
    return seq.arrival, seq.id


class Scheduler:
    """Decides each iteration; touches the KV pool only through ``BlockManager``'s verbs."""

    def __init__(self, cfg: EngineConfig, bm: BlockManager, queue: QueueDiscipline,
                 window: int | None, seqs: dict[int, Seq], max_model_len: int = 0) -> None:
        self.cfg = cfg
        self.bm = bm
        self.bs = cfg.block_size
        self.window = window
        self.waiting = queue
        # len(waiting), kept here: a discipline's __len__ is a Python call, asked every event.
        # Only the engine and this scheduler push to and pop from the queue.
        self.n_waiting = 0
        self.seqs = seqs
        self.swapped: deque[Seq] = deque()
        self.running: dict[int, Seq] = {}  # admission order
        self.prefilling: dict[int, Seq] = {}
        self.dec = DecodeSet(cfg.block_size, window)
        self.admitted = 0
        self.queued_prefill = 0  # tokens to compute before the next sample, not yet running
        self.long_queued = 0  # the part of queued_prefill that long requests (isolation) owe
        self.nd_rem = 0  # decode tokens left to produce by requests not decoding now
        self.preempt_recompute = 0
        self.preempt_swap = 0
        # What the last ``schedule`` decided.
        self.plan: list[tuple[Seq, int]] = []
        self.swap_in = 0  # KV tokens copied in from host memory
        self.swap_out = 0
        self.preempted = False
        self.stalled = False  # the last iteration ran prefills only (``prefill_first``)
        self._budget = 0
        self.max_tokens = cfg.max_num_batched_tokens
        self.prefill_first = cfg.prefill_first
        self.chunked = cfg.chunked_prefill
        # Host memory for swapped-out KV, in blocks (vLLM's CPU block pool); -1: unlimited.
        self.host_free = -1 if cfg.swap_tokens is None else cfg.swap_tokens // cfg.block_size
        self.swap_fallbacks = 0  # swaps that did not fit in host memory: recomputed instead
        # Size-class isolation (``policy.isolation``): the lifetime KV blocks and the number of
        # running long sequences, kept at admit, finish, preempt and swap-in; and the long
        # requests it set aside while blocked, oldest first (still counted in n_waiting).
        self.iso = cfg.isolation
        self.long_blocks = 0
        self.long_seqs = 0
        self.held: list[Seq] = []
        # Long prefill tokens one iteration may run (the cap), and what is left of it in the
        # iteration being decided; the cap is off (the whole budget) without isolation.
        self.long_cap = (self.iso.long_prefill_tokens(cfg.max_num_batched_tokens)
                         if self.iso is not None else cfg.max_num_batched_tokens)
        # Without chunked prefill a prompt runs whole: no cap can split it.
        self.capping = self.long_cap < cfg.max_num_batched_tokens and cfg.chunked_prefill
        self.yielding = self.capping and self.iso is not None and self.iso.long_prefill_yields
        self.long_left = self.long_cap
        # ``add``'s limits: a request longer than these may be rejected (``why_not``); the KV
        # limit is the pool's tokens, unless a window smaller than that caps the KV.
        self.max_model_len = max_model_len
        self._len_limit = max_model_len or math.inf
        pool = bm.num_blocks * cfg.block_size
        self._fit_limit = pool if window is None or window > pool else math.inf
        # Without chunked prefill a prompt must fit one iteration's budget.
        self._prompt_limit = math.inf if cfg.chunked_prefill else cfg.max_num_batched_tokens
        # FCFS itself (not a subclass): ``add`` and ``_admit`` push, peek and pop its public
        # heap of (arrival, id, request) with heapq, FCFS's own three methods written out.
        # An inline kept on purpose: calling them (Python methods, from compiled code, once
        # each per request) measured 6-7% of bench_engine's CPU time under mypyc (push ~2-3%,
        # peek and pop ~2% more, on top of the rest of this split's ~2%).
        self._heap: list[tuple] | None = queue.heap if type(queue) is FCFS else None

    # ---- arrivals -------------------------------------------------------------------------
    def add(self, seq: Seq) -> bool:
        """Queue ``seq``, or reject it (False; ``seq.reason`` says why) if it can never run."""
        # Runs once per request: the checks compare against limits worked out in __init__.
        prompt, output = seq.prompt, seq.output
        total = prompt + output
        if (prompt <= 0 or output <= 0 or total > self._len_limit or total > self._fit_limit
                or prompt > self._prompt_limit or self.iso is not None):
            seq.reason = self.why_not(seq, total)
            if seq.reason:
                seq.state = REJECTED
                return False
        self.queued_prefill += prompt
        if seq.long_blocks:
            self.long_queued += prompt
        self.nd_rem += output
        heap = self._heap
        if heap is not None:  # FCFS.push, written out (see __init__)
            req = seq.req
            heappush(heap, (req.arrival, req.id, req))
        else:
            self.waiting.push(seq.req)
        self.n_waiting += 1
        return True

    def why_not(self, seq: Seq, total: int) -> str:
        """Why a request of ``total`` tokens can never run here ("" if it can)."""
        blocks = self.blocks_for(total)
        num_blocks = self.bm.num_blocks
        if seq.prompt <= 0 or seq.output <= 0:
            return "prompt and output must each be at least one token"
        if self.max_model_len and total > self.max_model_len:
            return f"{total} tokens exceed max_model_len {self.max_model_len}"
        if blocks > num_blocks:
            return f"{total} tokens need {blocks} KV blocks, the instance has {num_blocks}"
        if seq.prompt > self._prompt_limit:
            return (f"a {seq.prompt}-token prompt exceeds max_num_batched_tokens "
                    f"{self.max_tokens} (no chunked prefill)")
        if self.iso is not None:
            return self._isolate(seq, blocks)
        return ""

    def _isolate(self, seq: Seq, blocks: int) -> str:
        """Size-class a request under isolation; why it can never run here, or ""."""
        iso, total = self.iso, self.bm.num_blocks
        assert iso is not None  # only called with isolation on
        cap = iso.max_request_blocks(total)
        if blocks > cap:
            return (f"{blocks} KV blocks exceed the per-request cap of {cap} "
                    f"({iso.max_request_kv_share:g} of {total})")
        if iso.size_class(seq.req) == LONG:
            budget = iso.long_block_budget(total)
            if blocks > budget:  # it would wait forever for room the reserve keeps from it
                return (f"a long request's {blocks} KV blocks exceed the {budget} long "
                        f"requests may use ({total} less the short reserve)")
            seq.long_blocks = blocks
        return ""

    def blocks_for(self, tokens: int) -> int:
        w = self.window
        if w is not None and tokens > w:
            tokens = w
        return -(-tokens // self.bs)

    def _chunk(self, seq: Seq, budget: int) -> tuple[int, int]:
        """The next prefill chunk of ``seq`` within ``budget`` tokens (and, for a long request
        under a prefill cap, within what is left of the cap): its tokens (0: none this
        iteration), and the KV blocks it adds to those ``seq`` holds."""
        c = seq.num_tokens - seq.computed
        if c > budget:
            c = budget
        if self.capping and seq.long_blocks:
            if c > self.long_left:
                c = self.long_left
            self.long_left -= c
        return c, self.blocks_for(seq.computed + c) - len(seq.hashed) - seq.anon

    def has_work(self) -> bool:
        return bool(self.running or self.swapped or self.n_waiting)

    # ---- one iteration --------------------------------------------------------------------
    def schedule(self, s: int, t: float) -> None:
        """Decide iteration ``s`` starting at time ``t``; allocates its KV blocks."""
        # Runs once per event: the usual case (no chunked prefill in flight, enough free
        # blocks) takes the shortest way.
        dec, bm, bs = self.dec, self.bm, self.bs
        self.swap_in = self.swap_out = 0
        self.preempted = False
        if dec.caps:
            dec.cap_due(s)
        if self.prefill_first:
            self.stalled = False
            if not self.swapped and (self.prefilling or self.n_waiting) and self._prefills_only(t):
                self.stalled = True
                return
        budget = self.max_tokens - dec.n_unc - dec.n_cap
        need = dec.cnt[(1 - s) % bs] if dec.n_unc else 0  # dec.need(s)
        plan: list[tuple[Seq, int]] = []
        prefilling = self.prefilling
        self.long_left = self.long_cap
        yielded = self.yielding and self._short_prefill_work()
        if yielded:
            self.long_left = 0
        if prefilling:
            adds = []
            for seq in prefilling.values():
                if budget <= 0:
                    break
                c, add = self._chunk(seq, budget)
                if c == 0:
                    continue  # a long prefill over the cap: short ones first this iteration
                plan.append((seq, c))
                adds.append(add)
                need += add
                budget -= c
        if need <= bm.available:
            bm.take(need)
            if prefilling:
                for (seq, _), add in zip(plan, adds, strict=True):
                    seq.anon += add
        else:
            plan, budget = self._schedule_under_pressure(s, t)
        self.plan = plan
        if not self.preempted:
            if self.swapped:
                budget = self._resume_swapped(s, t, budget)
            if not self.swapped and budget > 0 and self.n_waiting and not self.prefill_first:
                self._admit(t, budget)
        if yielded and not self._short_planned():
            self._unyield(t, self.max_tokens - dec.n_unc - dec.n_cap, not self.prefill_first)

    def _short_prefill_work(self) -> bool:
        """A long request is prefilling and other prefill work may be there for this iteration:
        a running prefill that is not long, or a waiting request that was not set aside (which
        may turn out not to fit, or to be long: ``_unyield`` then gives the cap back)."""
        longs = 0
        for seq in self.prefilling.values():
            if seq.long_blocks:
                longs += 1
            else:
                return True
        return longs > 0 and self.n_waiting > len(self.held)

    def _short_planned(self) -> bool:
        """The iteration being decided runs a prefill chunk of a request that is not long."""
        return any(not seq.long_blocks for seq, _ in self.plan)

    def _unyield(self, t: float, budget: int, admit: bool) -> None:
        """The long prefills yielded to short prefill work that did not run after all (it did
        not fit the KV or the batch slots, or the waiting requests were long ones that only now
        were set aside): they take the iteration's cap back, in what is left of ``budget``
        (the iteration's whole prefill budget: the plan's tokens are taken off here; ``admit``:
        long requests may start too, as step 5 allows), so an iteration is never lost
        to work that is not there. Without this an engine with no decode running and only
        long prefills deadlocked: every iteration yielded to a long request that had just
        arrived and was set aside."""
        plan, bm = self.plan, self.bm
        self.long_left = self.long_cap
        for _, c in plan:
            budget -= c
        for seq in self.prefilling.values():
            if budget <= 0 or self.long_left <= 0:
                break
            if not seq.long_blocks or any(q is seq for q, _ in plan):
                continue
            c, add = self._chunk(seq, budget)
            if add > bm.available:
                break  # a prefill does not preempt; the next iteration may
            bm.take(add)
            seq.anon += add
            plan.append((seq, c))
            budget -= c
        if (admit and budget > 0 and self.n_waiting and self.long_left > 0
                and not self.preempted and not self.swapped):
            self._admit(t, budget)

    def _prefills_only(self, t: float) -> bool:
        """A prefill-first iteration: running prefills, then admissions, with the whole budget.
        False (nothing taken) when no prefill can run: the iteration decodes instead."""
        bm = self.bm
        budget = self.max_tokens
        plan: list[tuple[Seq, int]] = []
        self.plan = plan
        self.long_left = self.long_cap
        yielded = self.yielding and self._short_prefill_work()
        if yielded:
            self.long_left = 0
        for seq in self.prefilling.values():
            if budget <= 0:
                break
            c, add = self._chunk(seq, budget)
            if c == 0:
                continue  # over the long prefill cap
            if add > bm.available:
                return bool(plan)  # a prefill does not preempt; a decode iteration may
            bm.take(add)
            seq.anon += add
            plan.append((seq, c))
            budget -= c
        if budget > 0 and self.n_waiting:
            self._admit(t, budget)
        if yielded and not self._short_planned():
            self._unyield(t, self.max_tokens, True)
        return bool(plan)

    def _schedule_under_pressure(self, s: int, t: float) -> tuple[list[tuple[Seq, int]], int]:
        """Step 3 of the module docstring, request by request (rare, so plain)."""
        bm, bs = self.bm, self.bs
        self._budget = self.cfg.max_num_batched_tokens
        sched: dict[int, int] = {}
        for seq in list(self.running.values()):
            if seq.state != DECODE or seq.id not in self.running:
                continue
            self._budget -= 1
            if not seq.capped and (seq.off + s - 1) % bs == 0:
                if not self._make_room(1, seq, s, t, sched):
                    continue
                bm.take(1)
            sched[seq.id] = 1
        plan = []
        for seq in list(self.prefilling.values()):
            if seq.id not in self.running:
                continue
            if self._budget <= 0:
                break
            c, add = self._chunk(seq, self._budget)
            if c == 0:
                continue  # over the long prefill cap
            if not self._make_room(add, seq, s, t, sched):
                continue
            bm.take(add)
            seq.anon += add
            sched[seq.id] = c
            self._budget -= c
            plan.append(seq)
        return [(q, sched[q.id]) for q in plan if q.id in self.running], self._budget

    def _make_room(self, add: int, seq: Seq, s: int, t: float, sched: dict[int, int]) -> bool:
        """Preempt until ``add`` blocks are available; False if ``seq`` itself was preempted."""
        while self.bm.available < add:
            victim = min(self.running.values(),
                         key=lambda q: (q.priority, -q.arrival, -q.admit_no))
            self.preempt(victim, s, t, sched.pop(victim.id, 0))
            if victim is seq:
                return False
        return True

    def preempt(self, seq: Seq, s: int, t: float, scheduled: int) -> None:
        """Take ``seq`` off the GPU before iteration ``s``; ``scheduled`` tokens were booked."""
        self.preempted = True
        self._budget += scheduled
        if seq.state == DECODE:
            self.dec.remove(seq, s)
            self.nd_rem += seq.output - seq.produced
            s_join, p_join, _ = seq.segments[-1]
            seq.segments[-1] = (s_join, p_join, s)
            anon = self.blocks_for(seq.computed + scheduled) - len(seq.hashed)
        else:
            del self.prefilling[seq.id]
            self._owe(seq, seq.computed - seq.num_tokens)
            anon = seq.anon
        del self.running[seq.id]
        if seq.long_blocks:
            self.long_blocks -= seq.long_blocks
            self.long_seqs -= 1
        self.bm.give(anon)
        self.bm.drop(seq.hashed)
        seq.anon = 0
        seq.hashed = []
        swap = self.cfg.preemption == "swap"
        if swap and self.host_free >= 0:
            host = self.blocks_for(seq.computed)
            if host <= self.host_free:
                self.host_free -= host
            else:  # host memory is full: recompute it instead
                swap = False
                self.swap_fallbacks += 1
        if swap:
            self.preempt_swap += 1
            self.swap_out += seq.computed
            seq.state = SWAPPED
            seq.reg_stop = True  # its blocks come back anonymous
            seq.preemptions.append((t, "swap"))
            self.swapped.append(seq)
        else:
            self.preempt_recompute += 1
            seq.computed = 0
            seq.state = WAITING
            seq.reg_stop = False
            seq.preemptions.append((t, "recompute"))
            self.waiting.push(seq.req)
            self.n_waiting += 1
        self._owe(seq, seq.num_tokens - seq.computed)

    def _owe(self, seq: Seq, tokens: int) -> None:
        """``tokens`` more (or, negative, fewer) prefill tokens ``seq`` still owes."""
        self.queued_prefill += tokens
        if seq.long_blocks:
            self.long_queued += tokens

    def _resume_swapped(self, s: int, t: float, budget: int) -> int:
        sw, bm, running = self.swapped, self.bm, self.running
        while sw and len(running) < self.cfg.max_num_seqs and budget > 0:
            seq = sw[0]
            c = min(seq.num_tokens - seq.computed, budget)
            need = self.blocks_for(seq.computed + c)
            if need > bm.available:
                break
            sw.popleft()
            bm.take(need)
            if self.host_free >= 0:
                self.host_free += self.blocks_for(seq.computed)
            self.swap_in += seq.computed
            running[seq.id] = seq
            if seq.long_blocks:  # it comes back regardless of the reserve: it is older
                self.long_blocks += seq.long_blocks
                self.long_seqs += 1
            budget -= c
            if seq.num_tokens - seq.computed == 1:
                self._owe(seq, -1)
                self.nd_rem -= seq.output - seq.produced
                self.dec.add(seq, s)
                seq.segments.append((s, seq.produced, OPEN))
            else:
                seq.state = PREFILL
                seq.anon = need
                self.prefilling[seq.id] = seq
                self.plan.append((seq, c))
        return budget

    def _admit(self, t: float, budget: int) -> None:
        q, bm, bs, w, running = self.waiting, self.bm, self.bs, self.window, self.running
        max_seqs = self.cfg.max_num_seqs
        plan, seqs, prefilling = self.plan, self.seqs, self.prefilling
        iso, held, heap = self.iso, False, self._heap
        while self.n_waiting and len(running) < max_seqs and budget > 0:
            if iso is not None:
                seq, held = self._next_isolated()
                if seq is None:
                    break
            elif heap is not None:
                seq = seqs[heap[0][1]]  # FCFS.peek().id
            else:
                seq = seqs[q.peek().id]
            num_tokens = seq.num_tokens
            hits = idle = 0
            keys = seq.keys
            if keys:
                # The last prompt token is always computed: its logits give the next token.
                hits, idle = bm.match(keys, (num_tokens - 1) // bs)
            computed = hits * bs
            c = num_tokens - computed
            if c > budget:
                if not self.chunked and c <= self.max_tokens:
                    break  # it waits to run whole (only a recompute beyond the budget chunks)
                c = budget
            capped = self.capping and seq.long_blocks > 0
            if capped and c > self.long_left:  # > 0: ``_next_isolated`` holds longs at 0
                c = self.long_left
            tokens = computed + c
            if w is not None and tokens > w:
                tokens = w
            add = -(-tokens // bs) - hits  # self.blocks_for(computed + c) - hits
            if add + idle > bm.available:
                break
            if held:
                del self.held[0]
            elif heap is not None:
                heappop(heap)  # FCFS.pop
            else:
                q.pop()
            self.n_waiting -= 1
            if seq.long_blocks:
                self.long_blocks += seq.long_blocks
                self.long_seqs += 1
            if hits and keys:
                seq.hashed = keys[:hits]
                self._owe(seq, -computed)
            bm.allocate(seq.hashed, add, num_tokens)
            seq.anon = add
            seq.computed = computed
            if seq.cached_tokens < 0:
                seq.cached_tokens = computed
                seq.first_scheduled = t
            self.admitted += 1
            seq.admit_no = self.admitted
            seq.state = PREFILL
            running[seq.id] = seq
            prefilling[seq.id] = seq
            plan.append((seq, c))
            budget -= c
            if capped:
                self.long_left -= c

    def _next_isolated(self) -> tuple[Seq | None, bool]:
        """The next waiting request isolation lets start (and whether it was set aside).

        A long request the policy blocks is taken out of the discipline and set aside, so the
        short ones behind it may start; it stays ahead of the queue (it was at its head), and a
        later long request waits behind it (first come, first served within the class). Only a
        finish or a preemption of a long sequence can unblock it: between those the answer does
        not change, which keeps decode runs skippable in closed form.
        """
        iso, held, seqs, q = self.iso, self.held, self.seqs, self.waiting
        assert iso is not None  # only called with isolation on
        total, max_seqs = self.bm.num_blocks, self.cfg.max_num_seqs
        # This iteration's long prefill cap is spent: long requests wait (held, in order) and
        # the short ones behind them start; the cap is whole again at the next iteration.
        spent = self.capping and self.long_left == 0
        head_checked = None
        while True:
            if held and held[0] is not head_checked:
                head = head_checked = held[0]
                if not spent and iso.can_schedule(head.req, self.long_blocks, total,
                                                  self.long_seqs, max_seqs, head.long_blocks):
                    return head, True
            if self.n_waiting <= len(held):
                return None, False
            seq = seqs[q.peek().id]
            if not seq.long_blocks:
                return seq, False
            if held or spent or not iso.can_schedule(seq.req, self.long_blocks, total,
                                                     self.long_seqs, max_seqs, seq.long_blocks):
                q.pop()
                # By arrival: a request preempted by recompute goes back to its place, which
                # may be ahead of the held head; the new head is then asked at once (else it
                # would wait for a finish or preemption that the closed form skips to).
                insort(held, seq, key=_arrival_order)
                continue
            return seq, False

    # ---- after the iteration --------------------------------------------------------------
    def complete_prefills(self, s_next: int, t_end: float) -> list[Seq]:
        """Apply the prefill chunks of the iteration that ended at ``t_end``; a sequence whose
        prompt is done decodes from iteration ``s_next`` on."""
        finished = []
        bm, bs = self.bm, self.bs
        queued = long = 0
        for seq, c in self.plan:
            seq.computed = computed = seq.computed + c
            queued += c
            if seq.long_blocks:
                long += c
            keys, raws = seq.keys, seq.raws
            if keys and raws and not seq.reg_stop:
                hashed = seq.hashed
                b = len(hashed)
                while b < len(keys) and (b + 1) * bs <= computed:
                    if not bm.register(keys[b], raws[b]):
                        seq.reg_stop = True
                        break
                    hashed.append(keys[b])
                    seq.anon -= 1
                    b += 1
            if computed == seq.num_tokens:
                seq.produced = produced = seq.produced + 1
                seq.num_tokens = computed + 1
                if seq.first_token < 0:
                    seq.first_token = t_end
                del self.prefilling[seq.id]
                if produced >= seq.output:
                    self.nd_rem -= 1
                    self.finish(seq, t_end)
                    finished.append(seq)
                else:
                    self.nd_rem -= seq.output - produced + 1  # the token sampled, the rest
                    self.dec.add(seq, s_next)
                    seq.segments.append((s_next, produced, OPEN))
        self.queued_prefill -= queued
        self.long_queued -= long
        return finished

    def finish(self, seq: Seq, t_end: float) -> None:
        """Free a finished request's KV: its prefix blocks stay cached, the rest is freed."""
        bm, hashed = self.bm, seq.hashed
        if seq.state == DECODE:
            kv, w = seq.computed, self.window
            if w is not None and kv > w:
                kv = w
            anon = -(-kv // self.bs) - len(hashed)  # self.blocks_for(seq.computed) - ...
        else:
            anon = seq.anon
        bm.give(anon)
        if hashed:
            bm.drop(hashed)
            seq.hashed = []
        seq.anon = 0
        seq.state = FINISHED
        seq.finish = t_end
        del self.running[seq.id]
        if seq.long_blocks:
            self.long_blocks -= seq.long_blocks
            self.long_seqs -= 1

    def abort(self, seq: Seq, s: int, t: float) -> None:
        """Drop ``seq`` before iteration ``s``, wherever it is (its client went away, as vLLM's
        abort): its KV is freed (prefix blocks stay cached) and it ends at ``t``."""
        state = seq.state
        if state != DECODE:  # what it added to the queued books (see ``add`` and ``preempt``)
            self._owe(seq, seq.computed - seq.num_tokens)
            self.nd_rem -= seq.output - seq.produced
        if state in (WAITING, SWAPPED):
            if state == SWAPPED:
                self.swapped.remove(seq)
                if self.host_free >= 0:
                    self.host_free += self.blocks_for(seq.computed)
            else:
                if seq in self.held:
                    self.held.remove(seq)
                elif self._heap is not None:
                    heap_remove(self._heap, seq.req)
                else:
                    self.waiting.remove(seq.req)
                self.n_waiting -= 1
            seq.state = FINISHED
            seq.finish = t
            return
        if state == DECODE:
            self.dec.remove(seq, s)
        else:
            del self.prefilling[seq.id]
        self.finish(seq, t)

    def check(self, s: int) -> None:
        """Recount every running sequence's blocks, and every queued one's prefill still owed,
        one by one against the books."""
        bm, total = self.bm, 0
        for seq in self.running.values():
            if seq.state == DECODE:
                x = seq.off + s - 1
                total += self.blocks_for(x) - len(seq.hashed)
            else:
                assert seq.anon == self.blocks_for(seq.computed) - len(seq.hashed), seq.id
                total += seq.anon
        assert total == bm.anon, (total, bm.anon)
        assert bm.used <= bm.num_blocks
        bm.check()
        # The prefill still owed, all of it and the long requests' part.
        queued = longs = 0
        for seq in self.seqs.values():
            if seq.state in (WAITING, PREFILL, SWAPPED):
                queued += seq.num_tokens - seq.computed
                if seq.long_blocks:
                    longs += seq.num_tokens - seq.computed
        assert (queued, longs) == (self.queued_prefill, self.long_queued), (
            queued, longs, self.queued_prefill, self.long_queued)
