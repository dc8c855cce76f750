"""Heterogeneity-aware routing: the instance where *this* request costs the fleet least.

A mixed fleet (H100s beside L4s) breaks load-count routers: an idle slow GPU is not as good as
an idle fast one, yet a swamped fast GPU is worse than an idle slow one. This router prices the
request on each instance with that instance's own speeds, from its view.

Its completion time (``completion_s``):

    wait     = queued_prefill_tokens / mixed_prefill_tokens_per_s (prefill queue ahead of it, at
               the rate prefill gets beside the running decodes: what of the token budget
               their one token each leaves, over the mixed iteration's time)
               or predicted_drain_s when the request's KV does not fit in the free blocks
               (it must wait for running work to finish) or the prefill speed is unknown,
               or the share of it until a batch slot frees when all ``max_num_seqs`` are
               taken (``slot_wait_s``)
    prefill  = (prompt_tokens - cached prefix tokens) / mixed_prefill_tokens_per_s
    decode   = output_tokens * step, one token per decode step of the batch it joins:
               step = the step now (num_running / decode_tokens_per_s; an idle instance
               reports its batch-1 rate) + decode_step_growth_s for each sequence that
               joins before it or with it (the queue ahead, then itself; at most
               ``max_num_seqs`` in all)

and what it costs the sequences beside it (``marginal_cost_s``):

    slowdown = num_running * (prompt_tokens - cached) / prefill_tokens_per_s
               (each running sequence's steps stretch by the prefill compute it brings)
             + co-runners * decode_step_growth_s * overlap
               (every step they share is that much longer; overlap = the fewer of its
               output tokens and their mean remaining ones)

It picks the smallest ``completion + slowdown``: the request's own time plus the time it adds
to everyone else's, both from the instance's cost model. Pricing the request at 1/n of the
decode rate alone ignores the second term, and a fast GPU then takes far more than its share
(its queue grows until its TTFT breaks the SLO). Unknown speeds (0 in the view) take the
router's defaults, so a fleet without a cost model still routes by queue depth.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import chain

from tokenpilot.policy.router import NoHealthyInstance, Router, RouterError, cached_tokens
from tokenpilot.policy.view import InstanceView, slot_wait_s
from tokenpilot.workload.request import Request

DEFAULT_PREFILL_TOKENS_PER_S = 5000.0
DEFAULT_DECODE_TOKENS_PER_S = 50.0


class EarliestCompletionRouter(Router):
    name = "earliest-completion"

    def __init__(
        self, prefill_tokens_per_s: float = DEFAULT_PREFILL_TOKENS_PER_S,
        decode_tokens_per_s: float = DEFAULT_DECODE_TOKENS_PER_S,
        seed: int = 0,
    ) -> None:
        super().__init__(seed)
        if prefill_tokens_per_s <= 0 or decode_tokens_per_s <= 0:
            raise RouterError("earliest-completion needs positive default speeds")
        self.prefill_tokens_per_s = float(prefill_tokens_per_s)
        self.decode_tokens_per_s = float(decode_tokens_per_s)
        # The last view object seen at each index, and its _view_terms.
        self._seen: list[InstanceView | None] = []
        self._terms: list[tuple | None] = []

    def pick(self, request: Request, views: Sequence[InstanceView]) -> int:
        n = len(views)
        start = self._scan_start(n)
        best, best_cost = -1, 0.0
        prompt, output, hashes = request.prompt_tokens, request.output_tokens, request.prefix_hashes
        kv_tokens = prompt + output
        seen, terms = self._seen, self._terms
        if len(seen) != n:
            seen[:], terms[:] = [None] * n, [None] * n
        for i in chain(range(start, n), range(start)):
            v = views[i]
            if v is not seen[i]:
                seen[i], terms[i] = v, self._view_terms(v)
            wait, drain, bs, free, per_prompt, step, shared, rem = terms[i]
            # completion_s + marginal_cost_s, inlined: this loop runs for every view per request.
            if bs and -(-kv_tokens // bs) > free:
                wait = max(wait, drain)
            own = prompt
            if hashes and v.cached_prefixes:
                own -= cached_tokens(request, v)
            cost = (wait + own * per_prompt + output * step
                    + shared * (output if output < rem else rem))
            if best < 0 or cost < best_cost:
                best, best_cost = i, cost
        if best < 0 or best_cost == math.inf:  # an unhealthy view's wait is infinite
            raise NoHealthyInstance(n)
        return best

    def _view_terms(self, v: InstanceView) -> Terms:
        return view_terms(v, self.prefill_tokens_per_s, self.decode_tokens_per_s)


# (wait s (infinite when unhealthy), drain s, block size or 0, free blocks, s per own prompt
# token (its prefill beside the decodes plus the running sequences' stretch), decode step s of
# the batch it joins, s per shared step (co-runners x step growth), co-runners' mean remaining
# output tokens)
Terms = tuple[float, float, int, int, float, float, float, float]


def view_terms(v: InstanceView, default_prefill: float, default_decode: float) -> Terms:
    """What ``v`` contributes to every request's cost (the request-independent part).

    A fleet hands the router the same view objects request after request until their instance
    changes (views are immutable), and reading a dozen fields of every view was most of a
    pick: ``pick`` keeps the terms of the last view it saw at each index.
    """
    # Called whenever an instance's view changes (several times per pick in a busy fleet):
    # each field is read once, no helper calls.
    prefill = v.prefill_tokens_per_s
    queued = v.queued_prefill_tokens
    drain = v.predicted_drain_s
    if prefill > 0:
        mixed = v.mixed_prefill_tokens_per_s or prefill
        wait = queued / mixed
    else:
        # No cost model: the default speed prices the queue, the drain time if known bounds it.
        prefill = mixed = default_prefill
        wait = queued / prefill
        if drain > wait:
            wait = drain
    if not v.healthy:
        wait = math.inf
    slots = v.max_num_seqs
    running, waiting = v.num_running, v.num_waiting
    ahead = running + waiting
    if slots and ahead >= slots:
        wait = max(wait, slot_wait_s(v))  # max commutes: folded in before the KV check
    total = v.kv_blocks_total
    # The KV check needs a known block count (block size 0 here: never short of KV).
    bs = v.block_size if total else 0
    # The batch it decodes in: the running sequences, the queue ahead, itself (slots bound it).
    joined = ahead + 1 if not slots or ahead < slots else slots
    decode = v.decode_tokens_per_s
    if decode > 0:
        growth = v.decode_step_growth_s
        now = running or 1  # the batch decode_tokens_per_s is of (batch 1 when idle)
        step = now / decode + growth * (joined - now if joined > now else 0)
    else:
        growth, step = 0.0, 1.0 / default_decode
    rem = (v.outstanding_tokens - queued) / ahead if ahead else 0.0
    return (wait, drain, bs, total - v.kv_blocks_used, 1.0 / mixed + running / prefill, step,
            (joined - 1) * growth, rem)


def _prefill_rates(v: InstanceView, default_prefill: float) -> tuple[float, float]:
    """(prefill tokens/s of a full chunk, prefill tokens/s beside the running decodes)."""
    prefill = v.prefill_tokens_per_s
    if prefill > 0:
        return prefill, v.mixed_prefill_tokens_per_s or prefill
    return default_prefill, default_prefill


def _own_prefill_tokens(request: Request, v: InstanceView) -> int:
    own = request.prompt_tokens
    if request.prefix_hashes and v.cached_prefixes:
        own -= cached_tokens(request, v)
    return own


def completion_s(
    request: Request, v: InstanceView, default_prefill: float = DEFAULT_PREFILL_TOKENS_PER_S,
    default_decode: float = DEFAULT_DECODE_TOKENS_PER_S,
) -> float:
    """Predicted seconds from now until ``request`` would finish on the instance ``v``."""
    wait, drain, bs, free, _, step, _, _ = view_terms(v, default_prefill, default_decode)
    mixed = _prefill_rates(v, default_prefill)[1]
    if bs and -(-(request.prompt_tokens + request.output_tokens) // bs) > free:
        wait = max(wait, drain)
    return wait + _own_prefill_tokens(request, v) / mixed + request.output_tokens * step


def marginal_cost_s(
    request: Request, v: InstanceView, default_prefill: float = DEFAULT_PREFILL_TOKENS_PER_S,
    default_decode: float = DEFAULT_DECODE_TOKENS_PER_S,
) -> float:
    """Seconds ``request`` on ``v`` adds to the completion times of the sequences beside it."""
    *_, shared, rem = view_terms(v, default_prefill, default_decode)
    stretch = v.num_running / _prefill_rates(v, default_prefill)[0]
    return _own_prefill_tokens(request, v) * stretch + shared * min(request.output_tokens, rem)


def routing_cost_s(request: Request, v: InstanceView) -> float:
    """What :class:`EarliestCompletionRouter` minimises: completion plus marginal cost."""
    return completion_s(request, v) + marginal_cost_s(request, v)
