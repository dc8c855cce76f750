"""Fit the roofline's efficiency parameters per accelerator family to ../shared/fidelity.

A least-squares fit (Nelder-Mead on the sum of squared log prediction/measurement ratios) of a few
named parameters, the same for every row of a family, never one per row:

- a100: all seven parameters of tokenpilot.costmodel.Calibration, on the Splitwise Llama-2-70B
  DGX-A100 timings (TP 2/4/8, prefill and decode; rows faster than the 100%-of-peak bound left out).
- h100: flops_eff, bw_eff and the three overheads (step, per-sequence, all-reduce latency) on the
  static H100 rows of published_measurements.csv (newer engines: less per-step work); the
  attention and link parameters are taken from a100.
- default (every family without data): the a100 values.

Usage: python benchmarks/fit_calibration.py [--write]   (--write rewrites data/calibration.yaml)
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from tokenpilot.costmodel import Calibration
from tokenpilot.fidelity import (
    PUBLISHED,
    SPLITWISE,
    fidelity_dir,
    published_rows,
    splitwise_rows,
)

EFFS = {"flops_eff", "attn_eff", "bw_eff", "link_eff"}  # fractions: fitted through a logistic
LO, HI = 0.05, 0.95  # no kernel sustains more than ~95% of a datasheet peak
OUT = Path(__file__).resolve().parents[1] / "src" / "tokenpilot" / "data" / "calibration.yaml"


def _encode(cal: Calibration, names: list[str]) -> np.ndarray:
    v = [getattr(cal, n) for n in names]
    def enc(n: str, x: float) -> float:
        if n in EFFS:
            u = (min(max(x, LO + 1e-6), HI - 1e-6) - LO) / (HI - LO)
            return math.log(u / (1 - u))
        return math.log(x)

    return np.array([enc(n, x) for n, x in zip(names, v, strict=True)])


def _decode(base: Calibration, names: list[str], x: np.ndarray) -> Calibration:
    vals = {n: (LO + (HI - LO) / (1 + math.exp(-t)) if n in EFFS else math.exp(t)) for n, t in
            zip(names, x, strict=True)}
    return replace(base, **vals)


def nelder_mead(f, x0: np.ndarray, iters: int = 600, step: float = 0.4) -> np.ndarray:
    """A plain Nelder-Mead minimiser (numpy only; scipy is not a dependency)."""
    n = len(x0)
    pts = [x0] + [x0 + step * np.eye(n)[i] for i in range(n)]
    vals = [f(p) for p in pts]
    for _ in range(iters):
        order = np.argsort(vals)
        pts, vals = [pts[i] for i in order], [vals[i] for i in order]
        centroid = np.mean(pts[:-1], axis=0)
        xr = centroid + (centroid - pts[-1])
        fr = f(xr)
        if fr < vals[0]:
            xe = centroid + 2 * (centroid - pts[-1])
            fe = f(xe)
            pts[-1], vals[-1] = (xe, fe) if fe < fr else (xr, fr)
        elif fr < vals[-2]:
            pts[-1], vals[-1] = xr, fr
        else:
            xc = centroid + 0.5 * (pts[-1] - centroid)
            fc = f(xc)
            if fc < vals[-1]:
                pts[-1], vals[-1] = xc, fc
            else:  # shrink towards the best point
                pts = [pts[0]] + [pts[0] + 0.5 * (p - pts[0]) for p in pts[1:]]
                vals = [vals[0]] + [f(p) for p in pts[1:]]
    return pts[int(np.argmin(vals))]


def _loss(rows) -> float:
    errs = [math.log(r.predicted / r.measured) ** 2 for r in rows if r.included and r.predicted]
    return sum(errs) / len(errs)


def _mape(rows) -> float:
    errs = [abs(r.error_pct) for r in rows if r.included and r.predicted]
    return sum(errs) / len(errs)


def fit(folder: Path) -> dict[str, Calibration]:
    a100_names = ["flops_eff", "attn_eff", "bw_eff", "step_overhead_s", "seq_overhead_s",
                  "allreduce_latency_s", "link_eff"]
    start = Calibration("a100", 0.6, 0.4, 0.8, 0.004, 0.0002, 0.00005, 0.6)

    def a100_loss(x: np.ndarray) -> float:
        cal = _decode(start, a100_names, x)
        return _loss(splitwise_rows(folder / SPLITWISE, lambda _f: cal))

    a100 = _decode(start, a100_names, nelder_mead(a100_loss, _encode(start, a100_names)))
    a100_rows = splitwise_rows(folder / SPLITWISE, lambda _f: a100)
    print(f"a100: fitted on {sum(r.included for r in a100_rows)} Splitwise measurements, "
          f"MAPE {_mape(a100_rows):.1f}%", file=sys.stderr)

    h100_names = ["flops_eff", "bw_eff", "step_overhead_s", "seq_overhead_s", "allreduce_latency_s"]
    h100_start = replace(a100, family="h100")

    def h100_rows(cal: Calibration):
        rows = published_rows(folder / PUBLISHED, lambda fam: cal if fam == "h100" else a100)
        return [r for r in rows if r.included and "h100" in r.condition]

    def h100_loss(x: np.ndarray) -> float:
        return _loss(h100_rows(_decode(h100_start, h100_names, x)))

    h100 = _decode(h100_start, h100_names,
                   nelder_mead(h100_loss, _encode(h100_start, h100_names)))
    print(f"h100: fitted on {len(h100_rows(h100))} published static rows, "
          f"MAPE {_mape(h100_rows(h100)):.1f}%", file=sys.stderr)
    return {"default": replace(a100, family="default"), "a100": a100, "h100": h100}


def to_yaml(fitted: dict[str, Calibration]) -> str:
    lines = [
        "# Roofline efficiency parameters per accelerator family; what each means is documented",
        "# on tokenpilot.costmodel.Calibration. WRITTEN BY benchmarks/fit_calibration.py (a",
        "# least-squares fit to ../shared/fidelity); rerun it rather than editing by hand.",
        "# a100: fitted on splitwise_llama2_70b_a100.csv (vLLM-era engine, TP 2/4/8).",
        "# h100: efficiencies and overheads fitted on the static H100 rows of",
        "#   published_measurements.csv; attention and link terms from a100.",
        "# default: families without data (ada, mi300, ascend, ...) use the a100 fit: approximate.",
        "families:",
    ]
    notes = {"a100": "fit_calibration.py on splitwise_llama2_70b_a100.csv",
             "h100": "fit_calibration.py on published_measurements.csv (static H100 rows)",
             "default": "a100 values (no data for this family): approximate"}
    for fam, cal in fitted.items():
        lines.append(f"  {fam}:")
        for k, v in cal.to_dict().items():
            if k in ("family", "source"):
                continue
            lines.append(f"    {k}: {v:.6g}")
        lines.append(f'    source: "{notes[fam]}"')
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="rewrite data/calibration.yaml")
    args = ap.parse_args()
    folder = fidelity_dir()
    if folder is None:
        sys.exit("no shared/fidelity folder beside the repository")
    text = to_yaml(fit(folder))
    if args.write:
        OUT.write_text(text)
        print(f"wrote {OUT}", file=sys.stderr)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
