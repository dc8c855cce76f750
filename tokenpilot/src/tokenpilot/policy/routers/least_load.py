"""Least-loaded routers: fewest requests, or fewest outstanding tokens.

Ties are common (an idle fleet is all zeros), so the scan starts one instance further on at each
call: equal instances take turns instead of the first one taking everything.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain

from tokenpilot.policy.router import NoHealthyInstance, Router
from tokenpilot.policy.view import InstanceView
from tokenpilot.workload.request import Request


class LeastRequestsRouter(Router):
    """Fewest requests on the instance (running plus waiting)."""

    name = "least-requests"

    def pick(self, request: Request, views: Sequence[InstanceView]) -> int:
        n = len(views)
        start = self._scan_start(n)
        best, best_load = -1, 0
        for i in chain(range(start, n), range(start)):
            v = views[i]
            if v.healthy:
                load = v.num_running + v.num_waiting
                if best < 0 or load < best_load:
                    best, best_load = i, load
        if best < 0:
            raise NoHealthyInstance(n)
        return best


class LeastTokensRouter(Router):
    """Fewest outstanding tokens: requests weighted by the work they still need."""

    name = "least-tokens"

    def pick(self, request: Request, views: Sequence[InstanceView]) -> int:
        n = len(views)
        start = self._scan_start(n)
        return least_tokens(views, start)


def least_tokens(views: Sequence[InstanceView], start: int = 0) -> int:
    """The healthy view with the fewest outstanding tokens, scanning from ``start``."""
    n = len(views)
    best, best_load = -1, 0
    for i in chain(range(start, n), range(start)):
        v = views[i]
        if v.healthy:
            load = v.outstanding_tokens
            if best < 0 or load < best_load:
                best, best_load = i, load
    if best < 0:
        raise NoHealthyInstance(n)
    return best
