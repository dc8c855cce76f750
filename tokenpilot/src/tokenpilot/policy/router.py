"""The routing interface: one request and the fleet's views in, the index of one instance out.

The simulator and the live gateway both drive a router the same way::

    index = router.pick(request, views)   # views[i].index == i
    router.on_routed(request, index)      # once the request is placed there
    ...
    router.on_finished(request, index)    # once it has completed (or failed) there

``pick`` decides and must not assume the request will land where it said (the gateway may retry
elsewhere); routers that learn from placements (prefix affinity) learn in ``on_routed``. Routers
are pure code: no I/O, no clock reads; randomness comes from a ``random.Random`` the router owns,
seeded at construction. ``pick`` runs once per request over every instance, so it is a single
pass over the views with no per-call allocation beyond a few locals.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence, Set

from tokenpilot.policy.view import InstanceView
from tokenpilot.workload.request import Request


class RouterError(ValueError):
    """A router could not be built: unknown name, bad parameter, bad composition file."""


class NoHealthyInstance(RuntimeError):
    """Every instance the router was offered is unhealthy (or none was offered)."""

    def __init__(self, count: int) -> None:
        super().__init__(f"no healthy instance among {count} offered")
        self.count = count


class Router(ABC):
    """One routing policy. Subclasses set ``name`` and implement ``pick``."""

    name: str = ""
    # False: ``pick`` reads only ``len(views)`` and ``healthy``, and ``on_finished`` may come
    # late (at the instance's next pick or at the end). The simulator then skips building
    # views and keeps only the picked instance current, which is several times cheaper.
    needs_views: bool = True

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self._turn = 0

    @abstractmethod
    def pick(self, request: Request, views: Sequence[InstanceView]) -> int:
        """The index (into ``views``) of a healthy instance for ``request``.

        Raises ``NoHealthyInstance`` when no view is healthy.
        """

    def _scan_start(self, n: int) -> int:
        """Where this call's scan over ``n`` views starts: one further on each call, so equal
        instances (an idle fleet is all ties) take turns instead of the first taking all."""
        turn = self._turn
        self._turn = turn + 1
        return turn % n if n else 0

    def on_routed(self, request: Request, index: int) -> None:  # noqa: B027 - optional hook
        """The request was placed on ``views[index]``."""

    def on_finished(self, request: Request, index: int) -> None:  # noqa: B027 - optional hook
        """The request finished (or failed) on ``views[index]``."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


def healthy_indices(views: Sequence[InstanceView]) -> list[int]:
    """Indices of the healthy views; raises ``NoHealthyInstance`` when there are none."""
    out = [i for i, v in enumerate(views) if v.healthy]
    if not out:
        raise NoHealthyInstance(len(views))
    return out


def cached_depth(hashes: Sequence[int], cached: Set[int]) -> int:
    """How many leading prefix blocks of a request an instance already holds.

    Prefix hashes are chained (block k's hash covers blocks 0..k), so the match stops at the
    first block the instance lacks.
    """
    if not cached or not hashes or hashes[0] not in cached:
        return 0
    depth = 1
    for h in hashes[1:]:
        if h not in cached:
            break
        depth += 1
    return depth


def cached_tokens(request: Request, view: InstanceView) -> int:
    """Prompt tokens of ``request`` whose KV ``view`` already holds (by its cached prefixes)."""
    depth = cached_depth(request.prefix_hashes, view.cached_prefixes)
    return min(depth * request.prefix_block_tokens, request.prompt_tokens)
