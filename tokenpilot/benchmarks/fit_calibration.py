"""Fit the roofline's efficiency parameters per accelerator family to ../shared/fidelity.

A least-squares fit (``tokenpilot.calibrate.solve``, the search every calibration fit uses, on
log prediction/measurement ratios) of a few named parameters, the same for every row of a
family, never one per row:

- a100: all seven parameters of tokenpilot.costmodel.Calibration, on the Splitwise Llama-2-70B
  DGX-A100 timings (TP 2/4/8, prefill and decode; rows faster than the 100%-of-peak bound left
  out): ``calibrate.phases.fit_phases``, what ``tokenpilot calibrate --fit-phases`` runs.
- h100: flops_eff, bw_eff and the three overheads (step, per-sequence, all-reduce latency) on the
  static H100 rows of published_measurements.csv (newer engines: less per-step work, and
  TensorRT-LLM's own all-reduce: a100's all-reduce latency makes the NIM rows 20% off); the
  attention and link parameters are taken from a100. Five parameters on six rows, five of them
  at tp 2: the step overhead and the all-reduce latency trade (the fit puts it all in the
  latency), so it is approximate beyond these engines.
- cpu (the CPU hardware entries, llama.cpp on one core): the profile the sim-to-real harness
  fitted on this project's real llama.cpp server (``benchmarks/bench_sim_to_real.py --out DIR``
  writes DIR/profile.yaml; ``--cpu-profile DIR/profile.yaml`` takes it), fitted at the CPU
  share each run got, so it is the server's own cost; without the flag the catalog's current
  cpu entry is kept. One machine's figures: approximate on another CPU.
- default (every family without data): the a100 values.

Usage: python benchmarks/fit_calibration.py [--write] [--cpu-profile PROFILE.yaml]
(--write rewrites data/calibration.yaml)
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import yaml

from tokenpilot.calibrate.phases import fit_phases, read_phases
from tokenpilot.calibrate.solve import Search, solve
from tokenpilot.costmodel import Calibration
from tokenpilot.costmodel.calibration import calibration_for, list_families
from tokenpilot.fidelity import (
    PUBLISHED,
    SPLITWISE,
    fidelity_dir,
    published_rows,
    splitwise_rows,
)

LO, HI = 0.05, 0.95  # no kernel sustains more than ~95% of a datasheet peak
EFF_BOUNDS = {**{n: (LO, HI) for n in ("flops_eff", "attn_eff", "bw_eff", "link_eff")},
              "step_overhead_s": (1e-12, 1.0)}
OUT = Path(__file__).resolve().parents[1] / "src" / "tokenpilot" / "data" / "calibration.yaml"


def _mape(rows) -> float:
    errs = [abs(r.error_pct) for r in rows if r.included and r.predicted]
    return sum(errs) / len(errs)


def fit(folder: Path) -> dict[str, Calibration]:
    # a100: the per-phase fit of `tokenpilot calibrate --fit-phases`, on every tp, from the
    # Calibration defaults; h100 from fixed starts too (below). Not the catalog's current
    # values: the weak prior pulls toward the start, so starting from the last output moved
    # the values a little on every --write (h100's flops_eff 0.94 -> 0.71 -> 0.74 -> 0.71).
    res = fit_phases(read_phases(folder / SPLITWISE, (2, 4, 8)), "a100-80gb", "llama-2-70b",
                     start=Calibration(family="a100"), bounds=EFF_BOUNDS)
    a100 = replace(res.calibration, family="a100", source="")
    a100_rows = splitwise_rows(folder / SPLITWISE, lambda _f: a100)
    print(f"a100: fitted on {sum(r.included for r in a100_rows)} Splitwise measurements, "
          f"MAPE {_mape(a100_rows):.1f}% ({res.message})", file=sys.stderr)

    h100_names = ["flops_eff", "bw_eff", "step_overhead_s", "seq_overhead_s", "allreduce_latency_s"]

    def h100_rows(cal: Calibration):
        rows = published_rows(folder / PUBLISHED, lambda fam: cal if fam == "h100" else a100)
        return [r for r in rows if r.included and "h100" in r.condition]

    def h100_fit(start: Calibration) -> tuple[float, Calibration]:
        search = Search(Search.inside(start, h100_names, EFF_BOUNDS), h100_names, EFF_BOUNDS)

        def residuals(x: np.ndarray) -> np.ndarray:
            return np.array([math.log(r.predicted / r.measured)
                             for r in h100_rows(search.calibration(x))])

        sol = solve(residuals, search)
        return float(np.sum(residuals(sol.x) ** 2)), search.calibration(sol.x)

    # Six rows, five parameters: the loss has several valleys, so three fixed starts (a100's
    # result, the Calibration defaults, a near-peak engine with almost no host time per step)
    # and the end point with the least squared error.
    starts = [replace(a100, family="h100"), Calibration(family="h100", attn_eff=a100.attn_eff,
                                                        link_eff=a100.link_eff),
              Calibration(family="h100", flops_eff=HI, bw_eff=HI, attn_eff=a100.attn_eff,
                          link_eff=a100.link_eff, step_overhead_s=0.0, seq_overhead_s=1e-5)]
    h100 = min((h100_fit(s) for s in starts), key=lambda sc: sc[0])[1]
    print(f"h100: fitted on {len(h100_rows(h100))} published static rows, "
          f"MAPE {_mape(h100_rows(h100)):.1f}%", file=sys.stderr)
    return {"default": replace(a100, family="default"), "a100": a100, "h100": h100}


def cpu_family(profile: Path | None) -> Calibration | None:
    """The cpu family: from a harness profile when given, else the catalog's current entry."""
    if profile is not None:
        from tokenpilot.calibrate.profile import load_profile

        prof = load_profile(profile)
        print(f"cpu: from {profile} ({prof.gpu}, {prof.model}; "
              f"{prof.fit.get('message', 'no fit message')})", file=sys.stderr)
        return replace(prof.calibration, family="cpu", source="")
    if "cpu" in list_families():
        return calibration_for("cpu")
    return None


def to_yaml(fitted: dict[str, Calibration]) -> str:
    lines = [
        "# Roofline efficiency parameters per accelerator family; what each means is documented",
        "# on tokenpilot.costmodel.Calibration. WRITTEN BY benchmarks/fit_calibration.py (a",
        "# least-squares fit to ../shared/fidelity); rerun it rather than editing by hand.",
        "# a100: fitted on splitwise_llama2_70b_a100.csv (vLLM-era engine, TP 2/4/8).",
        "# h100: efficiencies and overheads fitted on the static H100 rows of",
        "#   published_measurements.csv; attention and link terms from a100.",
        "# cpu: the sim-to-real harness's profile of llama.cpp on one core of this project's CPU",
        "#   (bench_sim_to_real.py, fitted on the server's own clock): approximate elsewhere.",
        "# default: families without data (ada, mi300, ascend, ...) use the a100 fit: approximate.",
        "families:",
    ]
    notes = {"a100": "fit_calibration.py on splitwise_llama2_70b_a100.csv",
             "h100": "fit_calibration.py on published_measurements.csv (static H100 rows)",
             "cpu": "bench_sim_to_real.py profile (llama.cpp, SmolLM2-135M Q4_1, one core)",
             "default": "a100 values (no data for this family): approximate"}
    for fam, cal in fitted.items():
        lines.append(f"  {fam}:")
        for k, v in cal.to_dict().items():
            if k in ("family", "source"):
                continue
            lines.append(f"    {k}: {yaml.safe_dump(float(f'{v:.6g}')).splitlines()[0]}")
        lines.append(f'    source: "{notes[fam]}"')
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="rewrite data/calibration.yaml")
    ap.add_argument("--cpu-profile", type=Path, help="the cpu family from this harness profile")
    args = ap.parse_args()
    folder = fidelity_dir()
    if folder is None:
        sys.exit("no shared/fidelity folder beside the repository")
    fitted = fit(folder)
    try:
        cpu = cpu_family(args.cpu_profile)
    except ValueError as exc:
        sys.exit(f"error: {exc}")
    if cpu is not None:
        fitted["cpu"] = cpu
    text = to_yaml(fitted)
    if args.write:
        OUT.write_text(text)
        print(f"wrote {OUT}", file=sys.stderr)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
