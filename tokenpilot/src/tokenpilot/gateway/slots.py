"""Requests waiting for a backend slot, in the order of a queue discipline.

When every backend a request may go to is at its concurrency cap, the request waits here. Each
slot that frees wakes the request the discipline puts first (the same discipline objects the
engine simulator queues with) and is promised to it: until the woken request has resumed and
picked, ``promised`` is non-zero and a newcomer must queue too, or one arriving in between would
take the slot and the discipline's order would not hold. A request that gives up (it times out,
or its client leaves) leaves the discipline uncharged; one whose client leaves after it was woken
passes its slot on, and one woken as its deadline passes keeps it (the slot is never lost). All
of it runs on the serving event loop; nothing here knows HTTP.
"""

from __future__ import annotations

import asyncio
import time

from tokenpilot.policy.disciplines import QueueDiscipline
from tokenpilot.workload.request import Request


class SlotQueue:
    """Requests waiting for a slot, ordered by ``discipline``; at most ``max_queue`` at once."""

    def __init__(self, discipline: QueueDiscipline, max_queue: int) -> None:
        self.discipline = discipline
        self.max_queue = max_queue
        self.total = 0  # requests that ever waited
        self._waiters: dict[int, asyncio.Future[bool]] = {}  # request id -> its wake-up
        self._promised = 0
        # Optional parts of the discipline protocol, looked up once: taking out a request that
        # gave up, and charging tenants for the output they were served (fair queues).
        self._remove = getattr(discipline, "remove", None)
        self._on_decode = getattr(discipline, "on_decode", None)

    def __len__(self) -> int:
        """Requests waiting now."""
        return len(self._waiters)

    @property
    def promised(self) -> int:
        """Freed slots promised to woken requests that have not picked yet: while non-zero, a
        request that did not wait must not pick, but queue behind them."""
        return self._promised

    async def wait(self, req: Request, deadline: float) -> bool:
        """Queue ``req`` until a freed slot is promised to it (True: pick now, before anything
        else runs), or until ``deadline`` (``time.monotonic()``) passes or when the queue is
        full (False). Cancelled (the client left), it passes on a slot promised meanwhile."""
        left = deadline - time.monotonic()
        if left <= 0 or len(self._waiters) >= self.max_queue:
            return False
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[bool] = loop.create_future()
        timer = loop.call_later(left, _expire, fut)
        self._waiters[req.id] = fut
        self.total += 1
        self.discipline.push(req)
        try:
            woken = await fut
        except BaseException:  # cancelled while waiting, or after the wake-up
            self._leave(req, fut)
            raise
        finally:
            timer.cancel()
            # A discipline without ``remove`` keeps a request that gave up; ``free`` skips it.
            self._waiters.pop(req.id, None)
        if not woken:  # the deadline passed first
            self._leave(req, fut)
            return False
        self._promised -= 1  # the promise is kept: the caller picks now
        return True

    def free(self) -> None:
        """A slot freed: wake the waiting request the discipline puts first; promise it the slot."""
        q = self.discipline
        while len(q):
            req = q.pop()
            fut = self._waiters.pop(req.id, None)
            if fut is not None and not fut.done():
                fut.set_result(True)
                self._promised += 1
                return

    def release(self, req: Request, served: int) -> None:
        """``req`` left its slot after ``served`` output tokens: charge them to its tenant (fair
        disciplines count the service each tenant had) and hand the slot on."""
        if served and self._on_decode is not None:
            self._on_decode(req, served)
        self.free()

    def _leave(self, req: Request, fut: asyncio.Future[bool]) -> None:
        if fut.done() and not fut.cancelled() and fut.result():
            self._promised -= 1  # woken, but gone before it picked: the next one gets the slot
            self.free()
        elif self._remove is not None:  # still queued: out, so no tenant is charged for it
            self._remove(req)


def _expire(fut: asyncio.Future[bool]) -> None:
    if not fut.done():
        fut.set_result(False)
