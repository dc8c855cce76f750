"""How many decode steps fit in a time budget: a quadratic guess, then an exact check.

Shared by ``CostModel.decode_steps_within`` and the engine's decode clock. The span of ``k``
steps is a sum of ``max`` of two lines, so on the line that bounds the first step it is a
quadratic in ``k``; its root is usually the answer or one off, and ``largest_within`` settles
it against the exact span (galloping, then bisecting, only when the bound side changes).
"""

from __future__ import annotations

import math
from collections.abc import Callable

# "No such step" (never finishes, no cap due, more steps than anyone asks for). Below 2**62, so
# the mypyc-compiled engine keeps it an unboxed machine int like every other step count.
NEVER = 1 << 60


def steps_guess(first: float, slope: float, budget: float) -> int:
    """k with first*k + slope*k*(k-1)/2 ~ budget: the quadratic's positive root, rounded down.

    Written as 2*budget / (h + sqrt(h*h + 2*slope*budget)) so it stays accurate when ``slope``
    is tiny (no cancellation) and reduces to budget/first when it is zero.
    """
    h = first - slope / 2
    disc = h * h + 2 * slope * budget
    root = math.sqrt(disc) if disc > 0 else 0.0
    if h + root > 0:
        k = 2 * budget / (h + root)
    else:
        k = (root - h) / slope  # h < 0 (slope above twice the first step): the usual form
    return int(k) if k < NEVER else NEVER


def largest_within(span: Callable[[int], float], k: int, budget: float, strict: bool) -> int:
    """The largest k >= 0 with span(k) <= budget (< if ``strict``), searching from a guess.

    ``span`` is nondecreasing with span(0) == 0. A good guess costs two calls; a bad one
    gallops away from it, then bisects.
    """

    def ok(j: int) -> bool:
        v = span(j)
        return v < budget if strict else v <= budget

    k = max(k, 0)
    if ok(k):
        step = 1
        while ok(k + step):
            k += step
            step *= 2
        lo, hi = k, k + step  # ok(lo), not ok(hi)
    else:
        hi, step = k, 1
        lo = max(k - 1, 0)
        while lo > 0 and not ok(lo):
            hi = lo
            step *= 2
            lo = max(lo - step, 0)
        if lo == 0 and not ok(0):
            return -1  # only when even nothing fits a strict zero budget
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            lo = mid
        else:
            hi = mid
    return lo
