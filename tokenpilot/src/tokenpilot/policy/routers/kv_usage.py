"""Lowest KV-cache usage: the instance with the most memory headroom, so fewest preemptions.

Usage ties (common when views report no KV figures) go to fewer outstanding tokens.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain

from tokenpilot.policy.router import NoHealthyInstance, Router
from tokenpilot.policy.view import InstanceView
from tokenpilot.workload.request import Request


class KVUsageRouter(Router):
    name = "kv-usage"

    def pick(self, request: Request, views: Sequence[InstanceView]) -> int:
        n = len(views)
        start = self._scan_start(n)
        best, best_use, best_tokens = -1, 0.0, 0
        for i in chain(range(start, n), range(start)):
            v = views[i]
            if not v.healthy:
                continue
            use = v.kv_blocks_used / v.kv_blocks_total if v.kv_blocks_total else 0.0
            if (
                best < 0
                or use < best_use
                or (use == best_use and v.outstanding_tokens < best_tokens)
            ):
                best, best_use, best_tokens = i, use, v.outstanding_tokens
        if best < 0:
            raise NoHealthyInstance(n)
        return best
