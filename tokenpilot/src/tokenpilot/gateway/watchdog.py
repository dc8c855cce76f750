"""One timer for a whole stream's read timeout (compiled by mypyc with the relay's splice:
``Watchdog.start`` runs once per relayed chunk)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class Watchdog:
    """Calls ``expire`` once a wait begun by ``start`` (and not ended by ``stop``) lasts
    ``limit_s``: a read timeout for a whole stream with one timer, re-armed only when it fires.

    ``asyncio.timeout`` around each chunk's read made and cancelled a timer per chunk, ~9% of
    the gateway's CPU per streamed request; here a chunk costs a clock read and two stores.
    ``limit_s`` None or 0: no limit.
    """

    def __init__(self, limit_s: float | None, expire: Callable[[], None]) -> None:
        self.loop: asyncio.AbstractEventLoop = asyncio.get_running_loop()
        self.limit_s = limit_s
        self.expire = expire
        self.since: float | None = None
        self.handle: asyncio.TimerHandle | None = None
        self.expired = False

    def start(self) -> None:
        self.since = now = self.loop.time()
        if self.handle is None and self.limit_s:
            self.handle = self.loop.call_at(now + self.limit_s, self._check)

    def stop(self) -> None:
        self.since = None

    def cancel(self) -> None:
        self.since = None
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None

    def _check(self) -> None:
        self.handle = None
        if self.since is None or not self.limit_s:
            return  # not waiting now; the next ``start`` arms a timer again
        due = self.since + self.limit_s
        # A loop may run a timer up to its clock's resolution early (asyncio's: 1 ns; uvloop's
        # clock counts milliseconds): accept that much, or the timer would re-arm in place.
        if self.loop.time() >= due - 0.001:
            self.expired = True
            self.expire()
        else:
            self.handle = self.loop.call_at(due, self._check)
