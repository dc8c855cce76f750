"""Heterogeneity-aware routing: the instance that would finish *this* request first.

A mixed fleet (H100s beside L4s) breaks load-count routers: an idle slow GPU is not as good as
an idle fast one, yet a swamped fast GPU is worse than an idle slow one. This router prices the
request on each instance with that instance's own speeds, from its view:

    wait     = queued_prefill_tokens / prefill_tokens_per_s      (prefill queue ahead of it)
               or predicted_drain_s when the request's KV does not fit in the free blocks
               (it must wait for running work to finish) or the prefill speed is unknown,
               or the share of it until a batch slot frees when all ``max_num_seqs`` are
               taken (``slot_wait_s``)
    prefill  = (prompt_tokens - cached prefix tokens) / prefill_tokens_per_s
    decode   = output_tokens / (decode_tokens_per_s / num_running)
               decode_tokens_per_s is the instance's aggregate decode throughput (as the
               engine, the gateway and admission read it); one sequence of a batch of n
               gets 1/n of it, i.e. one token per decode step (an idle instance reports
               its batch-1 rate, so n = max(num_running, 1))

and picks the smallest ``wait + prefill + decode``. Unknown speeds (0 in the view) take the
router's defaults, so a fleet without a cost model still routes by queue depth.
"""

from __future__ import annotations

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
        best, best_eta = -1, 0.0
        prompt, output, hashes = request.prompt_tokens, request.output_tokens, request.prefix_hashes
        kv_tokens = prompt + output
        seen, terms = self._seen, self._terms
        if len(seen) != n:
            seen[:], terms[:] = [None] * n, [None] * n
        for i in chain(range(start, n), range(start)):
            v = views[i]
            if v is not seen[i]:
                seen[i], terms[i] = v, self._view_terms(v)
            healthy, prefill, wait, drain, bs, free, decode = terms[i]
            if not healthy:
                continue
            # The tail of completion_s, inlined: this loop runs for every view per request.
            if bs and -(-kv_tokens // bs) > free:
                wait = max(wait, drain)
            own = prompt
            if hashes and v.cached_prefixes:
                own -= cached_tokens(request, v)
            eta = wait + own / prefill + output / decode
            if best < 0 or eta < best_eta:
                best, best_eta = i, eta
        if best < 0:
            raise NoHealthyInstance(n)
        return best

    def _view_terms(self, v: InstanceView) -> Terms:
        return view_terms(v, self.prefill_tokens_per_s, self.decode_tokens_per_s)


# (healthy, prefill tokens/s, wait s, drain s, block size or 0, free blocks, decode tokens/s)
Terms = tuple[bool, float, float, float, int, int, float]


def view_terms(v: InstanceView, default_prefill: float, default_decode: float) -> Terms:
    """What ``v`` contributes to every request's ETA (the request-independent part).

    A fleet hands the router the same view objects request after request until their instance
    changes (views are immutable), and reading a dozen fields of every view was most of a
    pick: ``pick`` keeps the terms of the last view it saw at each index.
    """
    prefill = v.prefill_tokens_per_s
    if prefill > 0:
        wait = v.queued_prefill_tokens / prefill
    else:
        # No cost model: the default speed prices the queue, the drain time if known bounds it.
        prefill = default_prefill
        wait = max(v.predicted_drain_s, v.queued_prefill_tokens / prefill)
    slots = v.max_num_seqs
    if slots and v.num_running + v.num_waiting >= slots:
        wait = max(wait, slot_wait_s(v))  # max commutes: folded in before the KV check
    # The KV check needs a known block count (block size 0 here: never short of KV).
    bs = v.block_size if v.kv_blocks_total else 0
    decode = (v.decode_tokens_per_s / (v.num_running or 1)) or default_decode
    return (v.healthy, prefill, wait, v.predicted_drain_s, bs,
            v.kv_blocks_total - v.kv_blocks_used, decode)


def completion_s(
    request: Request, v: InstanceView, default_prefill: float = DEFAULT_PREFILL_TOKENS_PER_S,
    default_decode: float = DEFAULT_DECODE_TOKENS_PER_S,
) -> float:
    """Predicted seconds from now until ``request`` would finish on the instance ``v``."""
    _, prefill, wait, drain, bs, free, decode = view_terms(v, default_prefill, default_decode)
    # EarliestCompletionRouter.pick runs these lines inline for each of its views.
    if bs and -(-(request.prompt_tokens + request.output_tokens) // bs) > free:
        wait = max(wait, drain)
    own = request.prompt_tokens
    if request.prefix_hashes and v.cached_prefixes:
        own -= cached_tokens(request, v)
    return wait + own / prefill + request.output_tokens / decode
