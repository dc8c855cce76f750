"""Round robin: each healthy instance in turn, blind to load."""

from __future__ import annotations

from collections.abc import Sequence

from tokenpilot.policy.router import NoHealthyInstance, Router
from tokenpilot.policy.view import InstanceView
from tokenpilot.workload.request import Request


class RoundRobinRouter(Router):
    name = "round-robin"
    needs_views = False  # blind to load: no views, no timely finishes

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self._next = 0

    def pick(self, request: Request, views: Sequence[InstanceView]) -> int:
        n = len(views)
        start = self._next % n if n else 0
        for k in range(n):
            i = (start + k) % n
            if views[i].healthy:
                self._next = i + 1
                return i
        raise NoHealthyInstance(n)
