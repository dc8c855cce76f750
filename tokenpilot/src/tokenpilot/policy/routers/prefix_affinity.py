"""Prefix affinity: send a request where its prompt's prefix already sits in the KV cache.

Two sources say where a prefix is. The router's own bounded index (prefix hash -> instance of
the last request that carried it, evicted least-recently-used first) works for any backend; an
instance's ``cached_prefixes``, when the view has them, say what the engine really holds. The
instance with the longest match wins; without a match, the least-loaded one.

A hot prefix (one system prompt behind most traffic) would pull everything onto one instance,
so a load guard overrules affinity: when the preferred instance's outstanding tokens exceed
``(1 + slack)`` times the fleet's mean, and ``min_tokens``, the request goes to the least-loaded
instance instead. ``min_tokens`` keeps the guard quiet in a nearly idle fleet, where the mean is
tiny and losing the cache hit would cost more than the queueing it saves.

The guard credits a match with the prefill it saves over the least-loaded instance: sending a
long conversation elsewhere makes the fleet prefill its whole history again, so the preferred
instance may carry that many more tokens than the limit before the guard trips. Without the
credit, a queue about one request deep (Mooncake prompts are ~12k tokens) threw deep
continuations off their cache. A prefix every instance holds (one system prompt) earns no
credit, since the least-loaded instance holds it too, so a hot prefix is still spread.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from itertools import chain

from tokenpilot.policy.router import NoHealthyInstance, Router, RouterError, cached_depth
from tokenpilot.policy.view import InstanceView
from tokenpilot.workload.request import Request


class PrefixAffinityRouter(Router):
    name = "prefix-affinity"

    def __init__(
        self, capacity: int = 100_000, slack: float = 0.5, min_tokens: int = 4096,
        use_cached: bool = True, seed: int = 0,
    ) -> None:
        super().__init__(seed)
        if capacity < 1 or slack < 0 or min_tokens < 0:
            raise RouterError("prefix-affinity needs capacity >= 1, slack >= 0, min_tokens >= 0")
        self.capacity = int(capacity)
        self.slack = float(slack)
        self.min_tokens = int(min_tokens)
        self.use_cached = bool(use_cached)
        self._index: OrderedDict[int, int] = OrderedDict()
        # How often the guard overruled affinity: a figure worth reporting.
        self.guard_trips = 0

    def pick(self, request: Request, views: Sequence[InstanceView]) -> int:
        n = len(views)
        start = self._scan_start(n)
        least, least_load, total, count = -1, 0, 0, 0
        for i in chain(range(start, n), range(start)):
            v = views[i]
            if v.healthy:
                load = v.outstanding_tokens
                total += load
                count += 1
                if least < 0 or load < least_load:
                    least, least_load = i, load
        if least < 0:
            raise NoHealthyInstance(n)
        hashes = request.prefix_hashes
        if not hashes:
            return least
        preferred, depth = self._from_index(hashes, views)
        pref_load = views[preferred].outstanding_tokens if preferred >= 0 else 0
        if self.use_cached:
            for i in chain(range(start, n), range(start)):
                v = views[i]
                if v.healthy and v.cached_prefixes:
                    d = cached_depth(hashes, v.cached_prefixes)
                    # Equal matches: the less loaded holder.
                    if d > depth or (d and d == depth and v.outstanding_tokens < pref_load):
                        preferred, depth, pref_load = i, d, v.outstanding_tokens
        if preferred < 0:
            return least
        load = views[preferred].outstanding_tokens
        limit = (1.0 + self.slack) * total / count
        if load > self.min_tokens and load > limit:
            # Credit the prefill a deep match saves over the least-loaded instance.
            base = cached_depth(hashes, views[least].cached_prefixes) if self.use_cached else 0
            saved = min(max(depth - base, 0) * request.prefix_block_tokens, request.prompt_tokens)
            if load - saved > limit:
                self.guard_trips += 1
                return least
        return preferred

    def _from_index(self, hashes: Sequence[int], views: Sequence[InstanceView]) -> tuple[int, int]:
        """Deepest healthy instance the index has for the request's leading blocks."""
        index, n = self._index, len(views)
        preferred, depth = -1, 0
        for k, h in enumerate(hashes):
            i = index.get(h)
            if i is None:
                break
            if i < n and views[i].healthy:
                preferred, depth = i, k + 1
        return preferred, depth

    def on_routed(self, request: Request, index: int) -> None:
        table = self._index
        for h in request.prefix_hashes:
            table[h] = index
            table.move_to_end(h)
        while len(table) > self.capacity:
            table.popitem(last=False)

    def __len__(self) -> int:
        return len(self._index)
