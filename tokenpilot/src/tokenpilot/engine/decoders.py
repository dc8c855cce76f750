"""The running decode batch, kept as aggregates so a step costs nothing per sequence.

Every running decoder computes one token per iteration, so at iteration ``s`` a decoder that
joined with ``kv = off + s`` needs ``off + s`` KV tokens. The batch is described by:

- ``n_unc``, ``off_sum``: decoders still below the sliding window; their summed context is
  ``off_sum + n_unc * s``;
- ``n_cap``: decoders whose KV is capped at the window ``W`` (each attends ``W`` tokens);
- ``cnt[r]``: how many uncapped decoders have ``off % block_size == r``. A decoder needs a new
  block at iteration ``s`` exactly when ``off + s - 1`` is a multiple of the block size, so the
  blocks the whole batch needs at ``s`` are ``cnt[(1 - s) % block_size]``, and over ``k`` steps
  a sum of at most ``block_size`` such terms plus whole cycles of ``n_unc``.
- two heaps of future events by iteration: the iteration after which a decoder finishes, and
  (with a window) the last iteration before its KV reaches the cap.
"""

from __future__ import annotations

import heapq
from heapq import heappop, heappush

from tokenpilot.costmodel.steps import NEVER
from tokenpilot.engine.sequence import DECODE, Seq


class DecodeSet:
    __slots__ = ("bs", "window", "wtok", "cnt", "n_unc", "n_cap", "off_sum", "rem_const",
                 "fin", "caps")

    def __init__(self, block_size: int, window: int | None) -> None:
        self.bs = block_size
        self.window = window
        self.wtok = window or 0  # KV tokens a capped decoder attends
        self.cnt = [0] * block_size
        self.n_unc = 0
        self.n_cap = 0
        self.off_sum = 0
        self.rem_const = 0  # sum(output - p_join + s_join): decode tokens left = this - n * s
        self.fin: list[tuple[int, int, int, Seq]] = []
        self.caps: list[tuple[int, int, int, Seq]] = []

    @property
    def n(self) -> int:
        return self.n_unc + self.n_cap

    def ctx_sum(self, s: int) -> int:
        """Summed attended context of the batch at iteration ``s`` (new tokens included)."""
        cap = self.n_cap * self.wtok if self.n_cap else 0
        return self.off_sum + self.n_unc * s + cap

    def remaining(self, s: int) -> int:
        """Decode tokens the batch has still to produce before iteration ``s`` runs."""
        return self.rem_const - self.n * s

    def add(self, seq: Seq, s: int) -> None:
        """``seq`` (``computed == num_tokens - 1``) decodes from iteration ``s`` on."""
        seq.state = DECODE
        num_tokens, produced = seq.num_tokens, seq.produced
        seq.off = off = num_tokens - s
        seq.s_join = s
        seq.p_join = produced
        left = seq.output - produced
        self.rem_const += left + s
        w = self.window
        if w is not None and num_tokens > w:
            seq.capped = True
            self.n_cap += 1
        else:
            seq.capped = False
            self.n_unc += 1
            self.off_sum += off
            self.cnt[off % self.bs] += 1
            if w is not None:
                heappush(self.caps, (w - off, seq.id, s, seq))
        heappush(self.fin, (s + left - 1, seq.id, s, seq))

    def remove(self, seq: Seq, s: int) -> None:
        """Take ``seq`` out before iteration ``s`` runs; bring its counters up to date."""
        if seq.capped:
            self.n_cap -= 1
        else:
            off = seq.off
            self.n_unc -= 1
            self.off_sum -= off
            self.cnt[off % self.bs] -= 1
        p_join, s_join = seq.p_join, seq.s_join
        self.rem_const -= seq.output - p_join + s_join
        seq.produced = p = p_join + s - s_join
        seq.num_tokens = num_tokens = seq.prompt + p
        seq.computed = num_tokens - 1

    def cap_due(self, s: int) -> None:
        """Move decoders whose KV passes the window at iteration ``s`` to the capped group."""
        caps = self.caps
        while caps and caps[0][0] < s:
            _, _, s_join, seq = heapq.heappop(caps)
            if seq.state != DECODE or seq.s_join != s_join or seq.capped:
                continue  # stale: the sequence left the batch since
            seq.capped = True
            self.n_unc -= 1
            self.off_sum -= seq.off
            self.cnt[seq.off % self.bs] -= 1
            self.n_cap += 1

    def next_cap(self) -> int:
        caps = self.caps
        while caps:
            _, _, s_join, seq = caps[0]
            if seq.state == DECODE and seq.s_join == s_join and not seq.capped:
                return caps[0][0]
            heapq.heappop(caps)
        return NEVER

    def next_finish(self) -> int:
        fin = self.fin
        while fin:
            _, _, s_join, seq = fin[0]
            if seq.state == DECODE and seq.s_join == s_join:
                return fin[0][0]
            heapq.heappop(fin)
        return NEVER

    def pop_finished(self, s_last: int) -> list[Seq]:
        """Decoders whose last iteration is at or before ``s_last``, removed from the batch."""
        out = []
        fin, s = self.fin, s_last + 1
        while fin and fin[0][0] <= s_last:
            _, _, s_join, seq = heappop(fin)
            if seq.state == DECODE and seq.s_join == s_join:
                # self.remove(seq, s), inlined: once per finished request.
                if seq.capped:
                    self.n_cap -= 1
                else:
                    off = seq.off
                    self.n_unc -= 1
                    self.off_sum -= off
                    self.cnt[off % self.bs] -= 1
                p_join = seq.p_join
                self.rem_const -= seq.output - p_join + s_join
                seq.produced = p = p_join + s - s_join
                seq.num_tokens = num_tokens = seq.prompt + p
                seq.computed = num_tokens - 1
                out.append(seq)
        return out

    def need(self, s: int) -> int:
        """New blocks the batch needs at iteration ``s``."""
        return self.cnt[(1 - s) % self.bs]

    def blocks_for_steps(self, s0: int, m: int) -> int:
        """New blocks needed over iterations ``s0 .. s0 + m - 1``."""
        bs, cnt = self.bs, self.cnt
        q, r = divmod(m, bs)
        total = q * self.n_unc
        if r:
            # The r leftover steps read cnt[(1 - s0 - j) % bs] for j < r: a run of indices
            # going down from ``hi``, cyclically; summed as one or two slices (this runs at
            # every decode-run event, and a Python loop over up to bs - 1 terms was slow).
            hi = (1 - s0) % bs
            lo = hi - r + 1
            if lo >= 0:
                total += sum(cnt[lo:hi + 1])
            else:
                total += sum(cnt[:hi + 1]) + sum(cnt[lo:])
        return total

    def steps_within_blocks(self, s0: int, free: int, limit: int) -> int:
        """Largest ``m <= limit`` whose iterations ``s0 ..`` need at most ``free`` new blocks."""
        n, bs = self.n_unc, self.bs
        if n == 0 or free >= n * (-(-limit // bs)):
            return limit
        q = min(free // n, limit // bs)
        m = q * bs
        free -= q * n
        cnt = self.cnt
        while m < limit:
            c = cnt[(1 - s0 - m) % bs]
            if c > free:
                break
            free -= c
            m += 1
        return m
