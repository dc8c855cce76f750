"""Fit the roofline's efficiency parameters per accelerator family to ../shared/fidelity.

A least-squares fit (``tokenpilot.calibrate.solve``, the search every calibration fit uses, on
log prediction/measurement ratios) of a few named parameters, the same for every row of a
family, never one per row:

- a100: all seven parameters of tokenpilot.costmodel.Calibration, on the Splitwise Llama-2-70B
  DGX-A100 timings (TP 2/4/8, prefill and decode; rows faster than the 100%-of-peak bound left
  out): ``calibrate.phases.fit_phases``, what ``tokenpilot calibrate --fit-phases`` runs.
- The per-sequence overhead is the engine's host time (Splitwise's decode steps grow by the
  same ~0.25 ms per sequence at tp 4 and tp 8: not GPU work, which tp would split), so it is
  set by the engine's generation: the families hold the newer engines' (vLLM 0.6.0 with
  multi-step scheduling, SGLang 0.3.0, NIM 1.8.0, the engines of published_measurements.csv);
  what Splitwise's 2023 vLLM costs on top of that is the engine profile vllm-v0-legacy's
  seq_overhead_s (data/engines.yaml, rewritten by --write), under which the Splitwise rows are
  simulated, so the a100 fit on them is unchanged by the split. a100's is fitted on the two
  static A100 rows (one parameter, the rest from Splitwise, from the neutral default: one
  workload, so `--leave-one-out` is its only check); the value is not carried between GPUs:
  h100's rows alone give 1e-05 s, A100's 8e-05 s (an A100 left out of a shared fit is +31%).
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
       python benchmarks/fit_calibration.py --leave-one-out  (the published rows held out)
(--write rewrites data/calibration.yaml and vllm-v0-legacy's seq_overhead_s in data/engines.yaml)
"""

from __future__ import annotations

import argparse
import math
import re
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
from tokenpilot.hardware import get_gpu

LO, HI = 0.05, 0.95  # no kernel sustains more than ~95% of a datasheet peak
EFF_BOUNDS = {**{n: (LO, HI) for n in ("flops_eff", "attn_eff", "bw_eff", "link_eff")},
              "step_overhead_s": (1e-12, 1.0)}
DATA = Path(__file__).resolve().parents[1] / "src" / "tokenpilot" / "data"
OUT, ENGINES = DATA / "calibration.yaml", DATA / "engines.yaml"
LEGACY = "vllm-v0-legacy"  # the engine profile of Splitwise's vLLM (data/engines.yaml)


def _mape(rows) -> float:
    errs = [abs(r.error_pct) for r in rows if r.included and r.predicted]
    return sum(errs) / len(errs)


def fit_splitwise(folder: Path) -> Calibration:
    """a100 on the Splitwise timings, the engine's per-sequence overhead included."""
    res = fit_phases(read_phases(folder / SPLITWISE, (2, 4, 8)), "a100-80gb", "llama-2-70b",
                     start=Calibration(family="a100"), bounds=EFF_BOUNDS)
    a100 = replace(res.calibration, family="a100", source="")
    a100_rows = splitwise_rows(folder / SPLITWISE, lambda _f: a100)
    print(f"a100: fitted on {sum(r.included for r in a100_rows)} Splitwise measurements, "
          f"MAPE {_mape(a100_rows):.1f}% ({res.message})", file=sys.stderr)
    return a100


def fit(folder: Path) -> tuple[dict[str, Calibration], float]:
    """The families, and vllm-v0-legacy's per-sequence overhead (module doc)."""
    # a100: the per-phase fit of `tokenpilot calibrate --fit-phases`, on every tp, from the
    # Calibration defaults; h100 from fixed starts too (below). Not the catalog's current
    # values: the weak prior pulls toward the start, so starting from the last output moved
    # the values a little on every --write (h100's flops_eff 0.94 -> 0.71 -> 0.74 -> 0.71).
    splitwise = fit_splitwise(folder)
    a100 = fit_static(folder, "a100", splitwise)
    legacy = splitwise.seq_overhead_s - a100.seq_overhead_s
    if legacy < 0:
        sys.exit(f"the newer engines' per-sequence overhead on a100 ({a100.seq_overhead_s:.3g} s) "
                 f"is above Splitwise's ({splitwise.seq_overhead_s:.3g} s): no {LEGACY} "
                 "overhead to write")
    print(f"a100 seq_overhead_s: {a100.seq_overhead_s:.3g} s on the static A100 rows, MAPE "
          f"{_mape(static_rows(folder, 'a100', a100)):.1f}%; {LEGACY} adds {legacy:.3g} s per "
          "sequence", file=sys.stderr)
    h100 = fit_static(folder, "h100", splitwise)
    print(f"h100: fitted on {len(static_rows(folder, 'h100', h100))} published static rows, "
          f"MAPE {_mape(static_rows(folder, 'h100', h100)):.1f}%", file=sys.stderr)
    return {"default": replace(a100, family="default"), "a100": a100, "h100": h100}, legacy


# What the published static rows fit per family (module doc): a100 keeps Splitwise's kernel
# terms and takes only the newer engines' per-sequence overhead; h100 has no phase timings.
STATIC_NAMES = {"a100": ("seq_overhead_s",),
                "h100": ("flops_eff", "bw_eff", "step_overhead_s", "seq_overhead_s",
                         "allreduce_latency_s")}


def static_rows(folder: Path, family: str, cal: Calibration):
    """The published static rows of ``family``'s GPUs, predicted under ``cal``."""
    rows = published_rows(folder / PUBLISHED, lambda fam: cal)
    return [r for r in rows if r.included and get_gpu(r.condition.split()[2].split("x", 1)[1])
            .family == family]


def fit_static(folder: Path, family: str, splitwise: Calibration,
               leave_out: frozenset[str] = frozenset()) -> Calibration:
    """``family``'s STATIC_NAMES on its published static rows (but those whose id is in
    ``leave_out``), the rest from ``splitwise`` (the a100 fit on the Splitwise timings)."""
    names = STATIC_NAMES[family]

    def fit_from(start: Calibration) -> tuple[float, Calibration]:
        search = Search(Search.inside(start, names, EFF_BOUNDS), names, EFF_BOUNDS)

        def residuals(x: np.ndarray) -> np.ndarray:
            return np.array([math.log(r.predicted / r.measured)
                             for r in static_rows(folder, family, search.calibration(x))
                             if r.id not in leave_out])

        sol = solve(residuals, search)
        return float(np.sum(residuals(sol.x) ** 2)), search.calibration(sol.x)

    base = replace(splitwise, family=family)
    if family == "a100":  # from the neutral default: Splitwise's value is the old engine's
        return fit_from(replace(base, seq_overhead_s=Calibration().seq_overhead_s))[1]
    # h100: six rows, five parameters: the loss has several valleys, so three fixed starts
    # (a100's result, the Calibration defaults, a near-peak engine with almost no host time
    # per step) and the end point with the least squared error.
    starts = [base, Calibration(family=family, attn_eff=base.attn_eff, link_eff=base.link_eff),
              Calibration(family=family, flops_eff=HI, bw_eff=HI, attn_eff=base.attn_eff,
                          link_eff=base.link_eff, step_overhead_s=0.0, seq_overhead_s=1e-5)]
    return min((fit_from(s) for s in starts), key=lambda sc: sc[0])[1]


def leave_one_out(folder: Path, splitwise: Calibration, out=print) -> float:
    """Each published static row predicted by its family's fit on the others (printed through
    ``out``); the mean absolute error in %."""
    errs = []
    for family in STATIC_NAMES:
        for row in static_rows(folder, family, calibration_for(family)):
            held = fit_static(folder, family, splitwise, frozenset({row.id}))
            pred = next(r for r in static_rows(folder, family, held) if r.id == row.id)
            errs.append(abs(pred.error_pct))
            out(f"  {row.id:<28} left out: error {pred.error_pct:+6.1f}% "
                f"(seq_overhead_s {held.seq_overhead_s:.3g})")
    mean = sum(errs) / len(errs)
    out(f"leave-one-out mean abs. error {mean:.1f}% over {len(errs)} rows")
    return mean


def with_legacy_overhead(text: str, seq_overhead_s: float) -> str:
    """engines.yaml's text with vllm-v0-legacy's seq_overhead_s line set (comments kept)."""
    block = re.search(rf"^  {re.escape(LEGACY)}:\n(?:    .*\n|\s*\n)*", text, re.M)
    line = re.compile(r"^(    seq_overhead_s: )\S+", re.M)
    if block is None or not line.search(block.group(0)):
        sys.exit(f"{ENGINES}: no {LEGACY} profile with a seq_overhead_s line")
    value = yaml.safe_dump(float(f"{seq_overhead_s:.6g}")).splitlines()[0]
    new = line.sub(lambda m: m.group(1) + value, block.group(0), count=1)
    return text[:block.start()] + new + text[block.end():]


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
        "# a100 seq_overhead_s: the newer engines' (vLLM 0.6.0 multi-step, SGLang 0.3.0), fitted",
        "#   on the static A100 rows of published_measurements.csv; Splitwise's 2023 vLLM adds",
        "#   engines.yaml's vllm-v0-legacy seq_overhead_s to it.",
        "# h100: efficiencies and overheads fitted on the static H100 rows of",
        "#   published_measurements.csv; attention and link terms from a100.",
        "# cpu: the sim-to-real harness's profile of llama.cpp on one core of this project's CPU",
        "#   (bench_sim_to_real.py, fitted on the server's own clock): approximate elsewhere.",
        "# default: families without data (ada, mi300, ascend, ...) use the a100 fit: approximate.",
        "families:",
    ]
    notes = {"a100": ("fit_calibration.py on splitwise_llama2_70b_a100.csv (seq_overhead_s: "
                      "on the static A100 rows of published_measurements.csv)"),
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
    ap.add_argument("--leave-one-out", action="store_true",
                    help="predict each published static row from a fit on the others; no output")
    args = ap.parse_args()
    folder = fidelity_dir()
    if folder is None:
        sys.exit("no shared/fidelity folder beside the repository")
    if args.leave_one_out:
        leave_one_out(folder, fit_splitwise(folder))
        return
    fitted, legacy = fit(folder)
    try:
        cpu = cpu_family(args.cpu_profile)
    except ValueError as exc:
        sys.exit(f"error: {exc}")
    if cpu is not None:
        fitted["cpu"] = cpu
    text = to_yaml(fitted)
    if args.write:
        OUT.write_text(text)
        ENGINES.write_text(with_legacy_overhead(ENGINES.read_text(), legacy))
        print(f"wrote {OUT} and {LEGACY}'s seq_overhead_s in {ENGINES}", file=sys.stderr)
    else:
        sys.stdout.write(text + f"# {ENGINES.name}: {LEGACY} seq_overhead_s {legacy:.6g}\n")


if __name__ == "__main__":
    main()
