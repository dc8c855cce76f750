"""Queue disciplines: the order in which waiting requests are offered to the scheduler.

A discipline is any object with this small interface; the engine never knows which one it runs.
``policy`` adds priority and VTC (virtual token counter) disciplines behind the same shape.
"""

from __future__ import annotations

import heapq
from typing import Protocol, runtime_checkable

from tokenpilot.workload.request import Request


@runtime_checkable
class QueueDiscipline(Protocol):
    """Orders waiting requests. ``on_service`` tells it how many tokens a request was served.

    The engine reports prefill tokens as they are scheduled. Decode tokens are reported only to
    disciplines that set ``wants_decode_service`` (it costs a call per running request per
    event-skip), in one call per request per skipped span, to ``on_decode(req, tokens)`` if
    the discipline has one, else to ``on_service``.
    """

    wants_decode_service: bool

    def push(self, req: Request) -> None: ...

    def pop(self) -> Request: ...

    def peek(self) -> Request: ...

    def __len__(self) -> int: ...

    def on_service(self, req: Request, tokens: int) -> None: ...

    # Optional (the gateway uses it when present): ``remove(req) -> bool`` takes a request
    # out unserved, e.g. one that gave up waiting, without charging anyone for it.


class HeapQueue:
    """A discipline that is a heap of tuples ending in the request: subclasses push with their
    own sort key in front; served tokens change nothing."""

    wants_decode_service = False

    def __init__(self) -> None:
        self._heap: list[tuple] = []

    def pop(self) -> Request:
        return heapq.heappop(self._heap)[-1]

    def peek(self) -> Request:
        return self._heap[0][-1]

    def remove(self, req: Request) -> bool:
        """Take ``req`` out unserved (it gave up waiting); False if it is not queued."""
        return heap_remove(self._heap, req)

    def __len__(self) -> int:
        return len(self._heap)

    def on_service(self, req: Request, tokens: int) -> None:
        pass


class FCFS(HeapQueue):
    """First come, first served by arrival time.

    A request preempted by recompute goes back in with its original arrival, hence to the head
    of the queue, as vLLM does.
    """

    def push(self, req: Request) -> None:
        heapq.heappush(self._heap, (req.arrival, req.id, req))


def heap_remove(heap: list, req: Request) -> bool:
    """Remove the entry whose last item is ``req`` from a heap of tuples: O(n), for queues that
    lose a waiter now and then (the gateway's, when a request times out)."""
    for k, entry in enumerate(heap):
        if entry[-1] is req:
            heap[k] = heap[-1]
            heap.pop()
            heapq.heapify(heap)
            return True
    return False


# The engine's own disciplines; ``make_discipline`` adds ``policy.disciplines``' (priority, vtc)
# on first use, imported there because ``policy`` is the layer above the engine.
DISCIPLINES: dict[str, type] = {"fcfs": FCFS}


def discipline_names() -> tuple[str, ...]:
    """Every name ``make_discipline`` accepts."""
    _load_policy_disciplines()
    return tuple(DISCIPLINES)


def _load_policy_disciplines() -> None:
    if "vtc" not in DISCIPLINES:
        from tokenpilot.policy.disciplines import DISCIPLINES as POLICY_DISCIPLINES

        for k, v in POLICY_DISCIPLINES.items():
            DISCIPLINES.setdefault(k, v)


def make_discipline(name: str = "fcfs") -> QueueDiscipline:
    """A fresh discipline by name: ``fcfs``, ``priority`` or ``vtc`` (equal tenant weights)."""
    if name not in DISCIPLINES:
        _load_policy_disciplines()
    try:
        return DISCIPLINES[name]()
    except KeyError:
        raise ValueError(
            f"unknown queue discipline {name!r}; known: {', '.join(DISCIPLINES)}"
        ) from None
