"""Fit a calibration to measured per-request logs, with the simulator in the loop.

Every log's requests are replayed through one simulated instance (the fleet file's instance
kind: same arrivals, prompt and output lengths), and ``scipy.optimize.least_squares`` moves the
fitted parameters until each request's simulated TTFT and TPOT match the measured ones, as log
ratios, under a robust loss (``soft_l1``: a request slowed by something the simulator does not
know, such as another process on the CPU, counts linearly beyond 10%, not quadratically).

The search is ``calibrate.solve`` (the one every calibration fit uses): parameters as
``log(value / start)`` under a weak prior toward the start, so where the data cannot decide (two
parameters that only their sum shows) the profile stays near the start instead of drifting.
What the data identified is then read off the curvature at the solution: a parameter whose
relative uncertainty is under 10% is *identified*; the others are reported with the parameter
they trade against.

What the fit can see, from TTFT and TPOT of single requests at low load: prefill time versus
prompt length (``flops_eff`` and the constant per iteration), decode time at batch 1 (weights
over ``bw_eff``, plus overheads) and, only if batches of several sequences occur, how decode time
grows with batch size (``seq_overhead_s``, and ``flops_eff`` where decode is compute-bound).
Attention efficiency matters only at long contexts, and the tensor-parallel terms only at tp > 1:
those are held at the start value and said so. On a serial device (``roofline: serial``, a CPU
core) a step's weight stream is a per-step constant: bw_eff is then seen, through how much more a
one-token step costs than one prompt token, and step_overhead_s (the same shape) is held; what
single requests pin there is the sum ``ONE_SEQ_SERIAL``, split by the two-sequence steps.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from tokenpilot.calibrate.logs import RequestLog, percentiles
from tokenpilot.calibrate.solve import PRIOR_SIGMA, Search, solve
from tokenpilot.cluster.fleet import InstanceSpec
from tokenpilot.costmodel import Calibration
from tokenpilot.engine import Engine, RequestResult
from tokenpilot.hardware import get_gpu

FITTED = ("flops_eff", "bw_eff", "step_overhead_s", "seq_overhead_s")
# On a serial device (hardware.py GPUSpec.roofline) every iteration streams the weights before
# (not while) it computes: a dense model's weight stream is a constant per iteration, exactly
# the shape of step_overhead_s, so no log can tell the two apart. bw_eff carries it (the
# physical term: it also scales with the KV each step reads), step_overhead_s is held.
FITTED_SERIAL = ("flops_eff", "bw_eff", "seq_overhead_s")
OUTLIER_SCALE = 0.1  # soft_l1's f_scale: log errors beyond ~10% count linearly
IDENTIFIED_REL = 0.10  # relative 1-sigma uncertainty under which a parameter counts identified
NOISE_FLOOR = 0.02  # the least per-request log error the identifiability analysis assumes
MAX_EVALS = 400
ONE_SEQ_OVERHEAD = "step_overhead_s + seq_overhead_s"  # reported beside the fitted parameters
# Its serial-device counterpart: what a one-sequence step costs beyond its compute, seconds.
ONE_SEQ_SERIAL = "weight stream + step + seq overhead"
CONVERGED_MEDIAN = 0.35  # a fit whose median |log error| on a log is above this did not converge


class FitError(ValueError):
    """The logs cannot be fitted on this instance kind; the message says why."""


@dataclass(frozen=True)
class ParamFit:
    name: str
    value: float
    start: float
    rel_uncertainty: float  # 1-sigma, relative (log space)
    identified: bool
    trades_with: str = ""  # the parameter it is most correlated with, when not identified
    correlation: float = 0.0


@dataclass(frozen=True)
class LogFit:
    """How the fitted simulation reproduces one log (seconds; errors are sim/measured - 1)."""

    path: str
    requests: int
    measured: dict[str, float]  # ttft_p50, ttft_p90, tpot_p50, tpot_p90
    simulated: dict[str, float]
    median_abs_log_error: float  # over every request's TTFT and TPOT

    def errors(self) -> dict[str, float]:
        return {k: self.simulated[k] / self.measured[k] - 1 for k in self.measured
                if self.measured[k] > 0}


@dataclass
class FitResult:
    calibration: Calibration
    converged: bool
    message: str
    params: list[ParamFit]
    logs: list[LogFit]
    held: dict[str, str]  # parameters not fitted, and why
    evaluations: int
    wall_s: float

    def to_dict(self) -> dict:
        return {
            "converged": self.converged, "message": self.message,
            "evaluations": self.evaluations, "wall_s": round(self.wall_s, 3),
            "params": {p.name: {"value": p.value, "start": p.start,
                                "rel_uncertainty": round(p.rel_uncertainty, 4),
                                "identified": p.identified,
                                **({"trades_with": p.trades_with,
                                    "correlation": round(p.correlation, 3)}
                                   if p.trades_with else {})} for p in self.params},
            "held": self.held,
            "logs": [{"path": lf.path, "requests": lf.requests,
                      "median_abs_log_error": round(lf.median_abs_log_error, 4),
                      "measured": lf.measured, "simulated": lf.simulated,
                      "errors": {k: round(v, 4) for k, v in lf.errors().items()}}
                     for lf in self.logs],
        }


def fitted_names(spec: InstanceSpec) -> tuple[str, ...]:
    """The parameters a fit on ``spec`` moves (``FITTED``, or ``FITTED_SERIAL``)."""
    return FITTED_SERIAL if get_gpu(spec.gpu).roofline == "serial" else FITTED


def one_seq_constant(spec: InstanceSpec, cal: Calibration) -> float:
    """Seconds a one-sequence step costs beyond its compute: step + seq overhead, plus on a
    serial device the weights streamed once per step (a dense model's, at ``bw_eff``)."""
    fixed = cal.step_overhead_s + cal.seq_overhead_s
    gpu = get_gpu(spec.gpu)
    if gpu.roofline != "serial":
        return fixed
    cm = spec.cost_model(cal)
    return fixed + cm.weights_read(1) / (gpu.hbm_gbps * 1e9 * cal.bw_eff)


def simulate_log(spec: InstanceSpec, cal: Calibration, log: RequestLog) -> list[RequestResult]:
    """The log's requests replayed on one instance of ``spec`` under ``cal``, by request id."""
    engine = Engine(spec.cost_model(cal), spec.engine_config(record_token_times=False),
                    name="fit")
    results = engine.run(log.requests())
    for r in results:
        if r.rejected:
            raise FitError(f"{log.path}: request {r.id + 1} by arrival ({r.prompt_tokens} prompt + "
                           f"{r.output_tokens} output tokens) cannot run on this instance: "
                           f"{r.rejected}")
    return results


class _Problem:
    """The residual function: per-request log(sim / measured) of TTFT and TPOT, every log."""

    def __init__(self, spec: InstanceSpec, logs: Sequence[RequestLog], start: Calibration):
        self.spec, self.logs, self.start = spec, list(logs), start
        self.names = fitted_names(spec)
        self.search = Search(start, self.names)
        self.meas = []
        for log in self.logs:
            ttft = np.log([r.ttft_s for r in log.records])
            mask = np.array([r.tpot_s is not None and r.tpot_s > 0 for r in log.records])
            tpot = np.log([r.tpot_s for r in log.records if r.tpot_s is not None and r.tpot_s > 0])
            self.meas.append((ttft, mask, tpot))
        self.evaluations = 0

    def block_sizes(self) -> list[int]:
        """Lengths of the residual blocks, in order: each log's TTFT, then its TPOT."""
        return [len(v) for ttft, _, tpot in self.meas for v in (ttft, tpot)]

    def calibration(self, x: np.ndarray) -> Calibration:
        return self.search.calibration(x)

    def simulated(self, cal: Calibration) -> list[tuple[np.ndarray, np.ndarray]]:
        self.evaluations += 1
        out = []
        for log, (_, mask, _) in zip(self.logs, self.meas, strict=True):
            res = simulate_log(self.spec, cal, log)
            out.append((np.array([r.ttft for r in res]),
                        np.array([r.tpot for r in res])[mask]))
        return out

    def data_residuals(self, x: np.ndarray) -> np.ndarray:
        parts = []
        for (ttft, tpot), (m_ttft, _, m_tpot) in zip(self.simulated(self.calibration(x)),
                                                     self.meas, strict=True):
            parts.append(np.log(np.maximum(ttft, 1e-9)) - m_ttft)
            parts.append(np.log(np.maximum(tpot, 1e-9)) - m_tpot)
        return np.concatenate(parts)


def default_start(spec: InstanceSpec) -> Calibration:
    """The instance's current calibration, each fitted parameter moved well inside its bounds
    (``Search.inside``)."""
    return replace(Search.inside(spec.cost_model().cal, fitted_names(spec)), source="")


def fit(spec: InstanceSpec, logs: Sequence[RequestLog], start: Calibration | None = None,
        max_evals: int = MAX_EVALS) -> FitResult:
    """Fit ``fitted_names(spec)`` so that replaying each log on ``spec`` reproduces its TTFT
    and TPOT."""
    if not logs:
        raise FitError("no logs to fit")
    t0 = time.perf_counter()
    start = start or default_start(spec)
    prob = _Problem(spec, logs, start)
    try:
        sol = solve(prob.data_residuals, prob.search, loss="soft_l1", f_scale=OUTLIER_SCALE,
                    max_evals=max_evals)
    except ValueError as exc:
        raise FitError(str(exc)) from None
    cal = prob.calibration(sol.x)
    params = _identify(prob, sol.x, cal)
    logs_fit = _log_fits(prob, cal)
    worst = max(lf.median_abs_log_error for lf in logs_fit)
    if sol.status <= 0:
        converged, msg = False, (f"the fit did not converge in {prob.evaluations} simulations "
                                 f"({sol.message})")
    elif worst > CONVERGED_MEDIAN:
        bad = max(logs_fit, key=lambda lf: lf.median_abs_log_error)
        converged, msg = False, (
            f"the fit did not converge to the measurements: on {bad.path} the median request "
            f"is still {math.expm1(bad.median_abs_log_error) * 100:.0f}% off; the instance "
            "kind (slots, max_num_batched_tokens, model, weight dtype) may not be the one the "
            "log came from")
    else:
        converged, msg = True, f"converged in {prob.evaluations} simulations ({sol.message})"
    cal = replace(cal, source=f"tokenpilot calibrate --fit on {', '.join(lg.path for lg in logs)}")
    return FitResult(cal, converged, msg, params, logs_fit, _held(spec, logs, start),
                     prob.evaluations, time.perf_counter() - t0)


def _identify(prob: _Problem, x: np.ndarray, cal: Calibration) -> list[ParamFit]:
    """Each parameter's relative uncertainty from the curvature at ``x`` (Gauss-Newton).

    The requests of one log are not independent measurements (a busy spell of the machine
    slows many at once, and the optimiser stops on a simulator whose output moves in small
    steps), so each log's TTFT and each log's TPOT count as one observation: the mean squared
    sensitivity over its requests, against a noise of the residuals' robust spread, at least
    ``NOISE_FLOOR``. This is deliberately conservative: a parameter it calls identified is
    pinned by the shape of the data, not by the number of requests.
    """
    k, h = len(x), 0.03
    r0 = prob.data_residuals(x)
    cols = []
    for i in range(k):
        e = np.zeros(k)
        e[i] = h
        cols.append((prob.data_residuals(x + e) - prob.data_residuals(x - e)) / (2 * h))
    jac = np.stack(cols, axis=1)
    info = np.eye(k) / PRIOR_SIGMA**2
    start = 0
    for n in prob.block_sizes():
        block = jac[start:start + n]
        start += n
        if n:
            info += block.T @ block / n / _noise(r0) ** 2
    cov = np.linalg.inv(info)
    std = np.sqrt(np.diag(cov))
    corr = cov / np.outer(std, std)
    names = prob.names
    out = []
    for i, name in enumerate(names):
        ident = bool(std[i] < IDENTIFIED_REL)
        other, c = "", 0.0
        if not ident and k > 1:
            j = max((j for j in range(k) if j != i), key=lambda j: abs(corr[i, j]))
            other, c = names[j], float(corr[i, j])
        out.append(ParamFit(name, float(getattr(cal, name)), float(getattr(prob.start, name)),
                            float(std[i]), ident, other, c))
    # What a one-sequence step costs beyond its compute (``one_seq_constant``): single-request
    # logs show that sum even where they cannot split it.
    if "step_overhead_s" in names:
        name, parts = ONE_SEQ_OVERHEAD, {"step_overhead_s": cal.step_overhead_s}
    else:  # serial: the weight stream, W / bandwidth, falls as bw_eff grows
        stream = one_seq_constant(prob.spec, cal) - cal.step_overhead_s - cal.seq_overhead_s
        name, parts = ONE_SEQ_SERIAL, {"bw_eff": -stream}
    parts["seq_overhead_s"] = cal.seq_overhead_s
    total = one_seq_constant(prob.spec, cal)
    w = np.zeros(k)
    for n, v in parts.items():
        w[names.index(n)] = v / total  # d log(total) / d log(parameter)
    both = float(np.sqrt(w @ cov @ w))
    out.append(ParamFit(name, total, one_seq_constant(prob.spec, prob.start), both,
                        both < IDENTIFIED_REL))
    return out


def _noise(r: np.ndarray) -> float:
    return max(1.4826 * float(np.median(np.abs(r - np.median(r)))), NOISE_FLOOR)


def _log_fits(prob: _Problem, cal: Calibration) -> list[LogFit]:
    out = []
    for log, (ttft, tpot), (m_ttft, _, m_tpot) in zip(prob.logs, prob.simulated(cal), prob.meas,
                                                      strict=True):
        err = np.abs(np.concatenate([np.log(ttft) - m_ttft, np.log(tpot) - m_tpot]))
        out.append(LogFit(log.path, len(log.records),
                          percentiles(np.exp(m_ttft), np.exp(m_tpot)), percentiles(ttft, tpot),
                          float(np.median(err))))
    return out


def _held(spec: InstanceSpec, logs: Sequence[RequestLog], start: Calibration
          ) -> dict[str, str]:
    cm = spec.cost_model()
    mean_prompt = sum(r.prompt_tokens for lg in logs for r in lg.records) / sum(
        len(lg.records) for lg in logs)
    # Attention's share of a mean prompt's prefill FLOPs: what attn_eff could move.
    p = int(mean_prompt)
    linear = p * 2.0 * cm.model.body_active_params
    attn = (p * (p + 1) // 2) * cm.model.attn_flops_per_pair(decode=False)
    held = {"attn_eff": f"not fitted: attention is {attn / (attn + linear) * 100:.1f}% of the "
                        f"prefill FLOPs at the logs' mean prompt ({p} tokens), too little to "
                        "tell its efficiency apart"}
    reason = ("not fitted: tp is 1, there is no all-reduce" if spec.tp == 1 else
              "not fitted: the logs come from one tp, which cannot separate the all-reduce "
              "terms from the per-iteration overhead")
    held["allreduce_latency_s"] = held["link_eff"] = reason
    if "step_overhead_s" not in fitted_names(spec):
        held["step_overhead_s"] = (
            f"held at {start.step_overhead_s:.3g} s: {spec.gpu} streams the weights before it "
            "computes (roofline: serial), a constant per iteration the logs cannot tell apart "
            "from a fixed host time; bw_eff carries both")
    return held
