"""The one search every calibration fit uses: ``scipy.optimize.least_squares`` over named
``Calibration`` parameters.

Parameters are searched as ``x = log(value / start)``, so each starts at 0 and one finite-
difference step is the same relative change for all of them, inside per-parameter bounds. A weak
prior (a factor of 10 is one standard deviation) pulls each toward its start: the data decide
where they can, and where they cannot the value stays near the start instead of drifting.

Used by ``calibrate.fit`` (per-request logs, the simulator in the loop), ``calibrate.phases``
(per-phase timings, the cost model alone) and ``benchmarks/fit_calibration.py`` (the catalog).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from tokenpilot.costmodel import Calibration

# The widest values each parameter may take (a fit may narrow them).
BOUNDS: dict[str, tuple[float, float]] = {
    "flops_eff": (1e-3, 1.0), "attn_eff": (1e-3, 1.0), "bw_eff": (1e-3, 1.0),
    "link_eff": (1e-3, 1.0), "step_overhead_s": (1e-5, 1.0), "seq_overhead_s": (1e-6, 0.1),
    "allreduce_latency_s": (1e-8, 1e-2),
}
PRIOR_SIGMA = math.log(10.0)  # one standard deviation of the prior, in log(value)


class Search:
    """Where the search runs: the parameters, their start and their bounds."""

    def __init__(self, start: Calibration, names: Sequence[str],
                 bounds: Mapping[str, tuple[float, float]] | None = None) -> None:
        self.names = tuple(names)
        self.bounds = {n: (bounds or {}).get(n, BOUNDS[n]) for n in self.names}
        self.start = start
        self.p0 = np.array([getattr(start, n) for n in self.names], dtype=float)

    @staticmethod
    def inside(cal: Calibration, names: Sequence[str],
               bounds: Mapping[str, tuple[float, float]] | None = None) -> Calibration:
        """``cal`` with each named parameter moved well inside its bounds: a start on a bound
        would stall the search there (the trust region shrinks to the distance from the
        bound), so it is kept a factor of ten from the lower and 10% from the upper one."""
        b = {n: (bounds or {}).get(n, BOUNDS[n]) for n in names}
        return replace(cal, **{n: min(max(getattr(cal, n), b[n][0] * 10), b[n][1] * 0.9)
                               for n in names})

    def calibration(self, x: np.ndarray) -> Calibration:
        vals = self.p0 * np.exp(x)
        return replace(self.start, **{n: float(v) for n, v in zip(self.names, vals,
                                                                   strict=True)})

    def box(self) -> tuple[np.ndarray, np.ndarray]:
        """The bounds in search coordinates; raises ValueError if the start is outside."""
        lo = np.log([self.bounds[n][0] for n in self.names] / self.p0)
        hi = np.log([self.bounds[n][1] for n in self.names] / self.p0)
        if not (np.all(lo < 0) and np.all(hi > 0)):
            raise ValueError("the starting calibration lies outside the fit's bounds: "
                             + ", ".join(f"{n} in [{lo_:g}, {hi_:g}]" for n, (lo_, hi_) in
                                         self.bounds.items()))
        return lo, hi


def solve(data_residuals: Callable[[np.ndarray], np.ndarray], search: Search, *,
          loss: str = "linear", f_scale: float = 1.0, diff_step: float = 0.02,
          max_evals: int = 400, prior_sigma: float = PRIOR_SIGMA, tol: float = 1e-8) -> Any:
    """``least_squares`` on ``data_residuals(x)`` plus the prior; its OptimizeResult."""
    from scipy.optimize import least_squares

    lo, hi = search.box()

    def residuals(x: np.ndarray) -> np.ndarray:
        return np.concatenate([data_residuals(x), x / prior_sigma])

    return least_squares(residuals, np.zeros(len(search.names)), bounds=(lo, hi),
                         method="trf", loss=loss, f_scale=f_scale, diff_step=diff_step,
                         max_nfev=max_evals, ftol=tol, xtol=tol, gtol=tol)
