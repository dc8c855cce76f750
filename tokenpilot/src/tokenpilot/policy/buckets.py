"""Per-tenant token buckets behind one small interface, so several gateway replicas can share them.

A tenant's state is two numbers: the bucket ``level`` (tokens it may still start this minute,
refilled continuously at ``tokens_per_minute / 60`` per second up to one minute's worth) and
``inflight`` (tokens charged to requests not yet settled). Two operations change it, each atomic,
so that a Redis store can run each as one Lua script (``HMGET`` the two fields and the last
refill time, compute, ``HMSET``, all inside ``EVALSHA``):

``take(key, cost, limits, now)``
    Refill to ``now``; admit when the bucket holds ``min(cost, burst)`` tokens and the in-flight
    total stays within its limit; on admit, subtract ``cost`` from the level and add it to
    ``inflight``. The check happens against the state that includes every earlier take, so
    concurrent admissions cannot all pass on one stale reading: the tokens admitted in any
    window exceed the limit by at most one request (the one that needed ``min(cost, burst)``
    but was charged ``cost``). Gateways that charge only after the response arrives overshoot
    without bound under concurrency.
``settle(key, charged, actual, limits, now)``
    Refill to ``now``; give back ``charged - actual`` (a refund when the request produced fewer
    tokens than estimated, an extra charge when more; the level may go into debt) and release
    ``charged`` from ``inflight``.

Time is always passed in (``now``, seconds on any monotonic scale the caller keeps); the store
never reads a clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

RATE_LIMITED = "rate_limited"
INFLIGHT_LIMIT = "inflight_limit"


@dataclass(frozen=True, slots=True)
class BucketLimits:
    """One tenant's limits; ``None`` means unlimited."""

    tokens_per_minute: float | None = None
    max_inflight_tokens: int | None = None

    @property
    def burst(self) -> float:
        """The bucket's capacity: one minute's worth of tokens."""
        return float(self.tokens_per_minute) if self.tokens_per_minute is not None else 0.0

    @property
    def rate_per_s(self) -> float:
        return self.tokens_per_minute / 60.0 if self.tokens_per_minute else 0.0


@dataclass(frozen=True, slots=True)
class Take:
    """The answer of ``BucketStore.take``.

    ``missing`` is how many tokens the tenant lacks (bucket tokens for ``rate_limited``,
    in-flight room for ``inflight_limit``); admission turns it into a Retry-After.
    """

    ok: bool
    reason: str = ""
    missing: float = 0.0
    level: float = 0.0
    inflight: int = 0


@runtime_checkable
class BucketStore(Protocol):
    """Atomic per-key token-bucket operations (see the module docstring)."""

    def take(self, key: str, cost: int, limits: BucketLimits, now: float) -> Take: ...

    def settle(self, key: str, charged: int, actual: int, limits: BucketLimits,
               now: float) -> None: ...


@dataclass(slots=True)
class _State:
    level: float
    inflight: int
    stamp: float


class MemoryBucketStore:
    """The single-process ``BucketStore``: a dict of tenant states."""

    def __init__(self) -> None:
        self._states: dict[str, _State] = {}

    def _refilled(self, key: str, limits: BucketLimits, now: float) -> _State:
        st = self._states.get(key)
        if st is None:
            st = self._states[key] = _State(limits.burst, 0, now)
            return st
        # A clock that steps back (another replica's ``now``) refills nothing rather than
        # draining the bucket.
        if now > st.stamp:
            if limits.tokens_per_minute is not None:
                st.level = min(limits.burst, st.level + (now - st.stamp) * limits.rate_per_s)
            st.stamp = now
        return st

    def take(self, key: str, cost: int, limits: BucketLimits, now: float) -> Take:
        st = self._refilled(key, limits, now)
        if limits.tokens_per_minute is not None:
            need = min(float(cost), limits.burst)
            if st.level < need:
                return Take(False, RATE_LIMITED, need - st.level, st.level, st.inflight)
        cap = limits.max_inflight_tokens
        # A request larger than the whole in-flight limit may still run alone.
        if cap is not None and st.inflight > 0 and st.inflight + cost > cap:
            return Take(False, INFLIGHT_LIMIT, st.inflight + cost - cap, st.level, st.inflight)
        if limits.tokens_per_minute is not None:
            st.level -= cost
        st.inflight += cost
        return Take(True, "", 0.0, st.level, st.inflight)

    def settle(self, key: str, charged: int, actual: int, limits: BucketLimits,
               now: float) -> None:
        st = self._refilled(key, limits, now)
        if limits.tokens_per_minute is not None:
            st.level = min(limits.burst, st.level + charged - actual)
        st.inflight = max(0, st.inflight - charged)

    def level(self, key: str) -> float | None:
        """The bucket level as of the last operation (None for a tenant never seen)."""
        st = self._states.get(key)
        return st.level if st is not None else None

    def inflight(self, key: str) -> int:
        st = self._states.get(key)
        return st.inflight if st is not None else 0
