"""Least-loaded routers: fewest requests, or fewest outstanding tokens.

Ties are common (an idle fleet is all zeros), so the scan starts one instance further on at each
call: equal instances take turns instead of the first one taking everything.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import chain
from operator import attrgetter

from tokenpilot.policy.router import NoHealthyInstance, Router
from tokenpilot.policy.view import InstanceView
from tokenpilot.workload.request import Request

_healthy = attrgetter("healthy")
_tokens = attrgetter("outstanding_tokens")


def _requests(v: InstanceView) -> int:
    return v.num_running + v.num_waiting


def least_by(views: Sequence[InstanceView], load: Callable[[InstanceView], float],
             start: int = 0) -> int:
    """The healthy view with the least ``load``; of equal ones, the first from ``start`` on.

    This runs once per request over every instance, so the usual case (all healthy) runs in C:
    the health and the loads by ``map``, the least by ``min``, and the first index holding it
    from ``start`` on (then from 0) by ``list.index``.
    """
    n = len(views)
    if n and all(map(_healthy, views)):
        loads = list(map(load, views))
        least = min(loads)
        try:
            return loads.index(least, start)
        except ValueError:
            return loads.index(least)
    best, best_load = -1, 0.0
    for i in chain(range(start, n), range(start)):
        v = views[i]
        if v.healthy:
            x = load(v)
            if best < 0 or x < best_load:
                best, best_load = i, x
    if best < 0:
        raise NoHealthyInstance(n)
    return best


class LeastRequestsRouter(Router):
    """Fewest requests on the instance (running plus waiting)."""

    name = "least-requests"

    def pick(self, request: Request, views: Sequence[InstanceView]) -> int:
        return least_by(views, _requests, self._scan_start(len(views)))


class LeastTokensRouter(Router):
    """Fewest outstanding tokens: requests weighted by the work they still need."""

    name = "least-tokens"

    def pick(self, request: Request, views: Sequence[InstanceView]) -> int:
        return least_tokens(views, self._scan_start(len(views)))


def least_tokens(views: Sequence[InstanceView], start: int = 0) -> int:
    """The healthy view with the fewest outstanding tokens, scanning from ``start``."""
    return least_by(views, _tokens, start)
