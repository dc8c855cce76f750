"""Calibration from per-phase timings: ``tokenpilot calibrate --fit-phases CSV --gpu G --model M
--tp N --out PROFILE.yaml``.

The CSV is the Splitwise layout (``../shared/fidelity/splitwise_llama2_70b_a100.csv``): per row
``prompt_size``, ``batch_size``, ``prompt_time`` (ms: a prefill of batch_size prompts of
prompt_size tokens) and ``token_time`` (ms: one decode step of that batch, averaged over the
generation). Optional columns: ``tensor_parallel`` (rows are then taken at the ``--tp`` values
given; without it every row is at the one ``--tp``) and ``token_size`` (the tokens generated,
over which token_time is averaged; default 1: the step at the prompt's context). Other columns
are ignored.

The fit is the cost model alone (no simulator: each row is one iteration shape), searched by
``calibrate.solve`` on the log ratio predicted/measured of every prompt_time and token_time.
What it can identify: ``flops_eff`` (prefill), ``bw_eff`` and the overheads (decode at several
batch sizes), ``attn_eff`` when the prompts are long enough for attention to matter, and the
tensor-parallel terms (``allreduce_latency_s``, ``link_eff``) only from rows at two or more
tp degrees. A prefill row measured faster than the 100%-of-peak roofline cannot be what it says
and is left out (``fidelity`` does the same).

Repeated rows of one shape (tp, prompt, batch, tokens) are repeated measurements of one point,
not more points: the fit takes their geometric mean once, so a shape measured 45 times does not
weigh 45 times as much as one measured 5 times (Splitwise's 512x1 rows). The loss is Cauchy on
the log ratios with a 10% scale (``OUTLIER_SCALE``): a shape that no setting of the physical
terms can reach (Splitwise's large-batch tp4 prefills, slower than tp2 scaled would allow under
any compute plus link split) is down-weighted instead of bending every parameter toward it.

A profile holds efficiencies, fractions of the datasheet figures of the GPU it was fitted on;
the same software on another GPU keeps the efficiencies and gets that GPU's peaks, bandwidths
and links (``--calibration PROFILE.yaml`` on an instance of another GPU).
"""

from __future__ import annotations

import csv
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from tokenpilot.calibrate.solve import PRIOR_SIGMA, Search, solve
from tokenpilot.costmodel import Calibration, CostModel
from tokenpilot.costmodel.calibration import PARAMS
from tokenpilot.hardware import get_gpu
from tokenpilot.models import get_model

COLUMNS = ("prompt_size", "batch_size", "prompt_time", "token_time")
TP_TERMS = ("allreduce_latency_s", "link_eff")
ATTN_SHARE = 0.05  # attention's share of the longest prompt's FLOPs under which attn_eff is held
OUTLIER_SCALE = 0.1  # the Cauchy loss's f_scale: log errors beyond ~10% are down-weighted
CONVERGED_MAPE = 50.0  # a fit whose mean error on its own rows is above this did not converge
IDEAL = Calibration("ideal", 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0)


class PhaseError(ValueError):
    """A per-phase CSV is missing, malformed or has no rows to fit; the message says where."""


@dataclass(frozen=True)
class PhaseRow:
    row: int  # 1-based data row in the file
    tp: int
    prompt: int
    batch: int
    tokens: int  # decode steps token_time is averaged over
    prompt_ms: float
    token_ms: float


def read_phases(path: str | Path, tp: Sequence[int]) -> list[PhaseRow]:
    """The rows of a Splitwise-layout CSV at the tp degrees ``tp`` (module doc)."""
    p = Path(path)
    if not tp:
        raise PhaseError("--fit-phases needs --tp N (repeat it for rows at several tp degrees)")
    try:
        text = p.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise PhaseError(f"cannot read {p}: {getattr(exc, 'strerror', None) or exc}") from None
    reader = csv.DictReader(text.splitlines())
    header = reader.fieldnames or []
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise PhaseError(f"{p}: missing column(s) {', '.join(missing)} (the Splitwise layout: "
                         f"{', '.join(COLUMNS)}, times in ms)")
    has_tp = "tensor_parallel" in header
    if not has_tp and len(tp) > 1:
        raise PhaseError(f"{p} has no tensor_parallel column: its rows are at one --tp, "
                         f"not {', '.join(map(str, tp))}")
    out = []
    for k, r in enumerate(reader, start=1):
        where = f"{p} row {k}"
        try:
            vals = {c: float(r[c]) for c in COLUMNS}
            row_tp = int(r["tensor_parallel"]) if has_tp else tp[0]
            tokens = int(r["token_size"]) if r.get("token_size") not in (None, "") else 1
        except (TypeError, ValueError):
            raise PhaseError(f"{where}: {', '.join(COLUMNS)} must be numbers, got "
                             + ", ".join(f"{c}={r.get(c)!r}" for c in COLUMNS)) from None
        for c in ("prompt_size", "batch_size"):
            if vals[c] < 1 or vals[c] != int(vals[c]):
                raise PhaseError(f"{where}: {c} must be a positive whole number, got {r[c]}")
        for c in ("prompt_time", "token_time"):
            if not (vals[c] > 0 and math.isfinite(vals[c])):
                raise PhaseError(f"{where}: {c} must be a positive time in ms, got {r[c]}")
        if tokens < 1:
            raise PhaseError(f"{where}: token_size must be at least 1, got {r['token_size']}")
        if row_tp in tp:
            out.append(PhaseRow(k, row_tp, int(vals["prompt_size"]), int(vals["batch_size"]),
                                tokens, vals["prompt_time"], vals["token_time"]))
    if not out:
        raise PhaseError(f"{p}: no rows at tp {', '.join(map(str, tp))}")
    return out


def phase_ms(cm: CostModel, prompt: int, batch: int, tokens: int = 1) -> tuple[float, float]:
    """Predicted (prompt_time, token_time) in ms of one Splitwise row on ``cm``."""
    pre = cm.iteration(prefill=[(prompt, 0)] * batch).time_s * 1e3
    if tokens == 1:
        return pre, cm.decode_time(batch, batch * prompt) * 1e3
    return pre, cm.decode_span(batch, batch * prompt, batch, tokens) / tokens * 1e3


def prefill_floor_ms(model: str, gpu: str, tp: int, prompt: int, batch: int,
                     weight_dtype: str = "bf16") -> float:
    """The prefill's time at 100% of every datasheet figure with no overheads."""
    cm = CostModel(get_model(model), get_gpu(gpu), tp, weight_dtype=weight_dtype,
                   calibration=IDEAL)
    return cm.iteration(prefill=[(prompt, 0)] * batch).time_s * 1e3


@dataclass
class PhaseFit:
    calibration: Calibration
    converged: bool
    message: str
    fitted: tuple[str, ...]
    held: dict[str, str]
    errors: dict[str, float]  # "prefill tpN" / "decode tpN" -> mean |error| in %, fitted rows
    rows: int
    excluded: int  # prefill rows faster than the roofline bound
    evaluations: int
    wall_s: float

    def to_dict(self) -> dict:
        return {"converged": self.converged, "message": self.message,
                "fitted": list(self.fitted), "held": self.held,
                "mape_pct": {k: round(v, 2) for k, v in self.errors.items()},
                "rows": self.rows, "excluded_prefill_rows": self.excluded,
                "evaluations": self.evaluations, "wall_s": round(self.wall_s, 3)}


class _Models:
    """One cost model per tp under a calibration (the rows' tp degrees)."""

    def __init__(self, model: str, gpu: str, weight_dtype: str) -> None:
        self.model, self.gpu, self.weight_dtype = get_model(model), get_gpu(gpu), weight_dtype

    def at(self, tp: int, cal: Calibration) -> CostModel:
        return CostModel(self.model, self.gpu, tp, weight_dtype=self.weight_dtype,
                         calibration=cal)


def phase_errors(rows: Sequence[PhaseRow], model: str, gpu: str, cal: Calibration,
                 weight_dtype: str = "bf16") -> dict[str, float]:
    """Mean |predicted/measured - 1| in % per phase and tp ("prefill tp8", "decode tp8")."""
    models = _Models(model, gpu, weight_dtype)
    cms = {tp: models.at(tp, cal) for tp in sorted({r.tp for r in rows})}
    errs: dict[str, list[float]] = {}
    for r in rows:
        pre, tok = phase_ms(cms[r.tp], r.prompt, r.batch, r.tokens)
        if r.prompt_ms >= prefill_floor_ms(model, gpu, r.tp, r.prompt, r.batch, weight_dtype):
            errs.setdefault(f"prefill tp{r.tp}", []).append(abs(pre / r.prompt_ms - 1) * 100)
        errs.setdefault(f"decode tp{r.tp}", []).append(abs(tok / r.token_ms - 1) * 100)
    return {k: sum(v) / len(v) for k, v in sorted(errs.items(), key=lambda kv: (
        int(kv[0].rsplit("tp", 1)[1]), kv[0]))}


def phase_count(rows: Sequence[PhaseRow], model: str, gpu: str,
                weight_dtype: str = "bf16") -> dict[str, int]:
    """How many measurements ``phase_errors`` averages per phase and tp."""
    out: dict[str, int] = {}
    for r in rows:
        if r.prompt_ms >= prefill_floor_ms(model, gpu, r.tp, r.prompt, r.batch, weight_dtype):
            out[f"prefill tp{r.tp}"] = out.get(f"prefill tp{r.tp}", 0) + 1
        out[f"decode tp{r.tp}"] = out.get(f"decode tp{r.tp}", 0) + 1
    return out


def per_shape(rows: Sequence[PhaseRow]) -> list[PhaseRow]:
    """One row per shape (tp, prompt, batch, tokens): the geometric means of its repeats."""
    groups: dict[tuple[int, int, int, int], list[PhaseRow]] = {}
    for r in rows:
        groups.setdefault((r.tp, r.prompt, r.batch, r.tokens), []).append(r)
    return [replace(g[0], prompt_ms=math.exp(sum(math.log(r.prompt_ms) for r in g) / len(g)),
                    token_ms=math.exp(sum(math.log(r.token_ms) for r in g) / len(g)))
            for g in groups.values()]


def fit_phases(rows: Sequence[PhaseRow], gpu: str, model: str, *, weight_dtype: str = "bf16",
               start: Calibration | None = None,
               bounds: dict[str, tuple[float, float]] | None = None,
               max_evals: int = 400) -> PhaseFit:
    """Fit the calibration so the cost model reproduces every row's prompt and token time."""
    t0 = time.perf_counter()
    models = _Models(model, gpu, weight_dtype)
    measured, rows = rows, per_shape(rows)
    tps = sorted({r.tp for r in rows})
    floors = {(r.tp, r.prompt, r.batch): prefill_floor_ms(model, gpu, r.tp, r.prompt, r.batch,
                                                           weight_dtype) for r in rows}
    keep_pre = np.array([r.prompt_ms >= floors[(r.tp, r.prompt, r.batch)] for r in rows])
    held: dict[str, str] = {}
    if tps == [1]:
        held.update(dict.fromkeys(TP_TERMS, "not fitted: tp is 1, there is no all-reduce"))
    elif len(tps) == 1:
        held.update(dict.fromkeys(TP_TERMS, "not fitted: rows at one tp cannot separate the "
                                  "all-reduce terms from the per-iteration overhead"))
    # From the neutral defaults, not the catalog's family values: those were fitted on rows
    # (Splitwise's tp8 among them) a held-out fit must not see, even through its prior.
    base = Calibration(family=models.gpu.family) if start is None else start
    cm1 = models.at(tps[0], base)
    longest = max(r.prompt for r in rows)
    attn = (longest * (longest + 1) // 2) * cm1.model.attn_flops_per_pair(decode=False)
    linear = longest * 2.0 * cm1.model.body_active_params
    if attn / (attn + linear) < ATTN_SHARE:
        held["attn_eff"] = (f"not fitted: attention is {attn / (attn + linear) * 100:.1f}% of "
                            f"the longest prompt's ({longest} tokens) prefill FLOPs")
    names = [n for n in PARAMS if n not in held]
    search = Search(Search.inside(base, names, bounds), names, bounds)
    meas_pre = np.log([r.prompt_ms for r in rows])[keep_pre]
    meas_tok = np.log([r.token_ms for r in rows])

    def residuals(x: np.ndarray) -> np.ndarray:
        cal = search.calibration(x)
        cms = {tp: models.at(tp, cal) for tp in tps}
        pred = [phase_ms(cms[r.tp], r.prompt, r.batch, r.tokens) for r in rows]
        pre = np.log([p for p, _ in pred])[keep_pre]
        tok = np.log([t for _, t in pred])
        return np.concatenate([pre - meas_pre, tok - meas_tok])

    # Each row is a clean measurement of one iteration shape, not a noisy sample: the prior
    # toward the start weighs as much as one row (not as much as every row), enough to keep
    # a parameter the rows cannot see near its start without biasing those they can.
    n_res = int(keep_pre.sum()) + len(rows)
    try:
        sol = solve(residuals, search, loss="cauchy", f_scale=OUTLIER_SCALE,
                    max_evals=max_evals, prior_sigma=PRIOR_SIGMA * math.sqrt(n_res))
    except ValueError as exc:
        raise PhaseError(str(exc)) from None
    cal = replace(search.calibration(sol.x), family=get_gpu(gpu).family,
                  source=f"tokenpilot calibrate --fit-phases ({gpu}, {model}, tp "
                         f"{', '.join(map(str, tps))})")
    errors = phase_errors(measured, model, gpu, cal, weight_dtype)
    worst = max(errors.values())
    if sol.status <= 0:
        converged, msg = False, f"the fit did not converge in {sol.nfev} evaluations " \
                                f"({sol.message})"
    elif worst > CONVERGED_MAPE:
        bad = max(errors, key=errors.__getitem__)
        converged, msg = False, (f"the fit did not converge to the measurements: {bad} is "
                                 f"still {worst:.0f}% off on average; the GPU, model, weight "
                                 "dtype or tp may not be the ones the timings came from")
    else:
        converged, msg = True, f"converged in {sol.nfev} evaluations ({sol.message})"
    excluded = sum(r.prompt_ms < floors[(r.tp, r.prompt, r.batch)] for r in measured)
    return PhaseFit(cal, converged, msg, tuple(names), held, errors, len(measured), excluded,
                    int(sol.nfev), time.perf_counter() - t0)
