"""Power of two choices on tokens: sample two healthy instances, keep the less loaded.

Almost as good as a full least-load scan, and less herd-prone when views are stale: many
routers (or many requests between view refreshes) do not all pile on the same minimum.
"""

from __future__ import annotations

from collections.abc import Sequence

from tokenpilot.policy.router import Router, healthy_indices
from tokenpilot.policy.view import InstanceView
from tokenpilot.workload.request import Request


class PowerOfTwoRouter(Router):
    name = "p2c"

    def pick(self, request: Request, views: Sequence[InstanceView]) -> int:
        n = len(views)
        if n >= 2:
            a = self.rng.randrange(n)
            b = self.rng.randrange(n - 1)
            b += b >= a  # uniform over the others: two distinct samples
            if views[a].healthy and views[b].healthy:
                return b if views[b].outstanding_tokens < views[a].outstanding_tokens else a
        healthy = healthy_indices(views)  # slow path: some instance is down
        if len(healthy) == 1:
            return healthy[0]
        a, b = self.rng.sample(healthy, 2)
        return b if views[b].outstanding_tokens < views[a].outstanding_tokens else a
