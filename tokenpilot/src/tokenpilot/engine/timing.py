"""Closed-form time of many identical decode iterations.

For a fixed decode batch of ``n`` sequences the cost model's step time is
``max(A + a*i, B + b*i) + c`` at step ``i`` (summed context grows by ``growth`` per step), so
the time of ``k`` steps and the number of steps that fit before a deadline are sums of
arithmetic series. The cost model exposes ``decode_span``/``decode_steps_within``; this clock
caches the per-batch-size coefficients (through ``_decode_coeffs`` when the model has it) so a
span costs about a microsecond instead of re-deriving them each time.
"""

from __future__ import annotations

import math


def _series(start: float, step: float, i0: int, i1: int) -> float:
    m = i1 - i0
    if m <= 0:
        return 0.0
    return m * start + step * (m * (i0 + i1 - 1) / 2)


class DecodeClock:
    """Span times for a decode-only batch, from a cost model."""

    __slots__ = ("cm", "_coeffs", "_get")

    def __init__(self, cm) -> None:
        self.cm = cm
        self._coeffs: dict[int, tuple[float, float, float, float, float]] = {}
        self._get = getattr(cm, "decode_coeffs", None) or getattr(cm, "_decode_coeffs", None)

    def coeffs(self, n: int) -> tuple[float, float, float, float, float]:
        c = self._coeffs.get(n)
        if c is None:
            c = self._coeffs[n] = self._get(n)
        return c

    def span(self, n: int, ctx0: int, growth: int, k: int) -> float:
        """Seconds of ``k`` decode steps, the first over summed context ``ctx0``."""
        if k <= 0:
            return 0.0
        if self._get is None:
            return self.cm.decode_span(n, ctx0, growth, k)
        a_c, b_c, a_m, b_m, c = self.coeffs(n)
        A, a = a_c + b_c * ctx0, b_c * growth
        B, b = a_m + b_m * ctx0, b_m * growth
        # One line usually dominates the whole span (memory for decode); check both ends.
        if A >= B and A + a * (k - 1) >= B + b * (k - 1):
            return _series(A, a, 0, k) + c * k
        if B >= A and B + b * (k - 1) >= A + a * (k - 1):
            return _series(B, b, 0, k) + c * k
        return self.cm.decode_span(n, ctx0, growth, k)

    def compute_bound(self, n: int, ctx0: int) -> bool:
        """Whether the first step of such a batch is on the compute side of the roofline."""
        if self._get is None:
            return self.cm.iteration((), n, ctx0).bound == "compute"
        a_c, b_c, a_m, b_m, _ = self.coeffs(n)
        return a_c + b_c * ctx0 >= a_m + b_m * ctx0

    def steps_before(self, n: int, ctx0: int, growth: int, budget: float) -> int:
        """How many steps *start* strictly before ``budget`` seconds from now (at least 1)."""
        if budget == math.inf:
            return 1 << 62
        span = self.span
        # Guess from the dominant line of the step time, solving its quadratic; then correct.
        if self._get is None:
            t0 = span(n, ctx0, growth, 1)
            slope = max(span(n, ctx0, growth, 2) - 2 * t0, 0.0)
        else:
            a_c, b_c, a_m, b_m, c = self.coeffs(n)
            A, B = a_c + b_c * ctx0, a_m + b_m * ctx0
            t0, slope = (A + c, b_c * growth) if A >= B else (B + c, b_m * growth)
        if slope > 0:
            # span(j) ~ (slope/2) j^2 + (t0 - slope/2) j
            h = t0 - slope / 2
            j = int((-h + math.sqrt(h * h + 2 * slope * budget)) / slope)
        else:
            j = int(budget / t0)
        j = max(j, 0)
        # Largest j with span(j) < budget; search outward if the guess is off.
        if span(n, ctx0, growth, j) < budget:
            step = 1
            while span(n, ctx0, growth, j + step) < budget:
                j += step
                step *= 2
            hi = j + step  # span(hi) >= budget
            while hi - j > 1:
                mid = (j + hi) // 2
                if span(n, ctx0, growth, mid) < budget:
                    j = mid
                else:
                    hi = mid
        else:
            lo, step = j, 1
            while lo > 0 and span(n, ctx0, growth, lo) >= budget:
                j = lo
                lo = max(lo - step, 0)
                step *= 2
            hi = j  # span(hi) >= budget, span(lo) < budget (span(0) = 0)
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if span(n, ctx0, growth, mid) < budget:
                    lo = mid
                else:
                    hi = mid
            j = lo
        return j + 1
