"""Closed-form time of many identical decode iterations.

For a fixed decode batch of ``n`` sequences the cost model's step time is
``max(A + a*i, B + b*i) + c`` at step ``i`` (summed context grows by ``growth`` per step), so
the time of ``k`` steps and the number of steps that fit before a deadline are sums of
arithmetic series. The cost model exposes ``decode_span``/``decode_steps_within``; this clock
caches the per-batch-size coefficients (``decode_coeffs`` when the model has it) in a dict of
its own, so a span costs about a microsecond instead of re-deriving them each time, and it
solves "how many steps start before the next arrival" with one square root and two checks.
"""

from __future__ import annotations

import math
from math import sqrt

from tokenpilot.costmodel.steps import NEVER, largest_within, steps_guess


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
            get = self._get
            assert get is not None, "coefficients come from a cost model's decode_coeffs"
            c = self._coeffs[n] = get(n)
        return c

    def decode_time(self, n: int, ctx: int) -> float:
        """``cm.decode_time(n, ctx)`` (n >= 1) from the cached coefficients: a view asks it
        twice, and a fleet builds a view per routing decision."""
        if self._get is None:
            return self.cm.decode_time(n, ctx)
        a_c, b_c, a_m, b_m, c = self._coeffs.get(n) or self.coeffs(n)
        compute, memory = a_c + b_c * ctx, a_m + b_m * ctx
        return (compute if compute >= memory else memory) + c

    def span(self, n: int, ctx0: int, growth: int, k: int) -> float:
        """Seconds of ``k`` decode steps, the first over summed context ``ctx0``."""
        if k <= 0:
            return 0.0
        if self._get is None:
            return self.cm.decode_span(n, ctx0, growth, k)
        a_c, b_c, a_m, b_m, c = self._coeffs.get(n) or self.coeffs(n)
        A, a = a_c + b_c * ctx0, b_c * growth
        B, b = a_m + b_m * ctx0, b_m * growth
        # One line usually dominates the whole span (memory for decode); check both ends.
        # The sums are _series(start, step, 0, k), inlined: this runs at every event.
        j = k - 1
        if A >= B and A + a * j >= B + b * j:
            return k * A + a * (k * j / 2) + c * k
        if B >= A and B + b * j >= A + a * j:
            return k * B + b * (k * j / 2) + c * k
        return self.cm.decode_span(n, ctx0, growth, k)

    def span_bound(self, n: int, ctx0: int, growth: int, k: int) -> tuple[float, bool]:
        """(span(n, ctx0, growth, k), compute_bound(n, ctx0)) for one cache lookup."""
        if self._get is None:
            return self.span(n, ctx0, growth, k), self.compute_bound(n, ctx0)
        a_c, b_c, a_m, b_m, c = self._coeffs.get(n) or self.coeffs(n)
        A, B = a_c + b_c * ctx0, a_m + b_m * ctx0
        if k <= 0:
            return 0.0, A >= B
        a, b = b_c * growth, b_m * growth
        j = k - 1
        # The same arithmetic as ``span`` (one line dominating the whole span), inlined.
        if A >= B and A + a * j >= B + b * j:
            return k * A + a * (k * j / 2) + c * k, True
        if B >= A and B + b * j >= A + a * j:
            return k * B + b * (k * j / 2) + c * k, A >= B
        return self.cm.decode_span(n, ctx0, growth, k), A >= B

    def decode_run(self, n: int, ctx0: int, growth: int, k: int,
                   budget: float) -> tuple[int, float, bool]:
        """One decode-only event in one call: (steps, their time, first step compute-bound).

        ``k`` steps are wanted, but only those that start strictly before ``budget`` seconds
        from now (at least one): ``min(k, steps_before(...))``, then ``span_bound`` of that.
        This is the engine's hottest call, so the usual case (one roofline side bounds every
        step considered) is computed inline with the exact arithmetic of ``span``, and anything
        else goes the general way.
        """
        if self._get is None:
            if k > 1 and budget != math.inf:
                k = min(k, self.steps_before(n, ctx0, growth, budget))
            dt, compute = self.span_bound(n, ctx0, growth, k)
            return k, dt, compute
        a_c, b_c, a_m, b_m, c = self._coeffs.get(n) or self.coeffs(n)
        A, a = a_c + b_c * ctx0, b_c * growth
        B, b = a_m + b_m * ctx0, b_m * growth
        compute = A >= B
        # P + p*i: the line bounding the first step; Q + q*i: the other one.
        P, p, Q, q = (A, a, B, b) if compute else (B, b, A, a)
        if k > 1 and budget != math.inf:
            # j = steps_guess(P + c, p, budget), inlined (one call less per event): then
            # span(j) < budget <= span(j + 1), if the guess is exact.
            h = P + c - p / 2
            disc = h * h + 2 * p * budget
            root = sqrt(disc) if disc > 0 else 0.0
            x = 2 * budget / (h + root) if h + root > 0 else (root - h) / p
            j = int(x) if x < NEVER else NEVER
            if j + 1 >= k:
                # Only whether step k - 1 starts in time matters: k stands if span(k-1) fits.
                j = k - 1
                if not (P + p * j >= Q + q * j and j * P + p * (j * (j - 1) / 2) + c * j < budget):
                    k = min(k, self.steps_before(n, ctx0, growth, budget))
            elif (P + p * j >= Q + q * j
                  and j * P + p * (j * (j - 1) / 2) + c * j < budget
                  <= (j + 1) * P + p * ((j + 1) * j / 2) + c * (j + 1)):
                k = j + 1
            else:
                k = min(k, self.steps_before(n, ctx0, growth, budget))
        m = k - 1
        if P + p * m >= Q + q * m:
            return k, k * P + p * (k * m / 2) + c * k, compute
        return k, self.span(n, ctx0, growth, k), compute

    def compute_bound(self, n: int, ctx0: int) -> bool:
        """Whether the first step of such a batch is on the compute side of the roofline."""
        if self._get is None:
            return self.cm.iteration((), n, ctx0).bound == "compute"
        a_c, b_c, a_m, b_m, _ = self.coeffs(n)
        return a_c + b_c * ctx0 >= a_m + b_m * ctx0

    def steps_before(self, n: int, ctx0: int, growth: int, budget: float) -> int:
        """How many steps *start* strictly before ``budget`` seconds from now (at least 1)."""
        if budget == math.inf:
            return NEVER
        span = self.span
        # Guess from the line that bounds the first step, solving its quadratic; then check.
        if self._get is None:
            t0 = span(n, ctx0, growth, 1)
            slope = max(span(n, ctx0, growth, 2) - 2 * t0, 0.0)
        else:
            a_c, b_c, a_m, b_m, c = self._coeffs.get(n) or self.coeffs(n)
            A, B = a_c + b_c * ctx0, a_m + b_m * ctx0
            t0, slope = (A + c, b_c * growth) if A >= B else (B + c, b_m * growth)
        j = steps_guess(t0, slope, budget)
        if span(n, ctx0, growth, j) < budget <= span(n, ctx0, growth, j + 1):
            return j + 1  # the usual case: the guess is exact
        return largest_within(lambda i: span(n, ctx0, growth, i), j, budget, strict=True) + 1
