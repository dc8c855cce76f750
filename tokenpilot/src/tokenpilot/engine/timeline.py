"""The token-time log: when each simulated event ran, so ``Engine.tokens_by`` can answer later.

The engine does not keep per-token times (a decode run of k identical iterations is one event).
Per event it logs its start time and one packed record (``_LOG``): the first iteration, the
number of iterations, and for a decode-only run the batch (n, summed context, growth per step;
n = 0 for a single mixed iteration), then the event's duration. How many iterations had ended
by a time ``t`` is then a bisect over the start times plus, inside a decode run, the closed-form
clock's ``steps_before``.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from struct import Struct

from tokenpilot.engine.timing import DecodeClock

_LOG = Struct("qqqqqd")  # first iteration, iterations, n, summed context, growth, duration
_pack_log = _LOG.pack


class Timeline:
    """Start times (an array, for bisect) and packed records of the events simulated."""

    __slots__ = ("clock", "_t0", "_log")

    def __init__(self, clock: DecodeClock) -> None:
        self.clock = clock
        self._t0 = array("d")
        self._log = bytearray()

    def record(self, t0: float, s: int, k: int, n: int, ctx: int, growth: int,
               dur: float) -> None:
        """The event that started at ``t0``: iterations ``s`` to ``s + k - 1``, over ``dur``
        seconds; ``n`` (> 0 for a decode-only run), ``ctx`` and ``growth`` its batch."""
        self._t0.append(t0)
        self._log += _pack_log(s, k, n, ctx, growth, dur)

    def iterations_done_by(self, t: float) -> int:
        """How many iterations had ended by ``t`` (exact from the last ``compact`` on)."""
        i = bisect_right(self._t0, t) - 1
        if i < 0:
            return 0
        s0, k, n, ctx, g, dur = _LOG.unpack_from(self._log, _LOG.size * i)
        t0 = self._t0[i]
        if n == 0:  # one iteration (k = 1), or a prefill-only one no decoder counts (k = 0)
            return s0 + (k if t >= t0 + dur else 0)
        budget = t - t0
        clock = self.clock
        j = clock.steps_before(n, ctx, g, budget) - 1  # span(j) < budget
        if j + 1 <= k and clock.span(n, ctx, g, j + 1) <= budget:
            j += 1
        return s0 + min(j, k)

    def __len__(self) -> int:
        """Events logged (since the last ``compact``)."""
        return len(self._t0)

    def compact(self, t: float) -> None:
        """Forget the events before the one running at ``t``."""
        i = bisect_right(self._t0, t) - 1
        if i > 0:
            del self._t0[:i]
            del self._log[: _LOG.size * i]
