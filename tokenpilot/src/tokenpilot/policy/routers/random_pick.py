"""Uniformly random healthy instance: the baseline every load-aware router must beat."""

from __future__ import annotations

from collections.abc import Sequence

from tokenpilot.policy.router import Router, healthy_indices
from tokenpilot.policy.view import InstanceView
from tokenpilot.workload.request import Request


class RandomRouter(Router):
    name = "random"
    needs_views = False  # blind to load: no views, no timely finishes

    def pick(self, request: Request, views: Sequence[InstanceView]) -> int:
        n = len(views)
        if n:
            i = self.rng.randrange(n)
            if views[i].healthy:  # the common case: no list to build
                return i
        return self.rng.choice(healthy_indices(views))
