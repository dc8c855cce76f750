"""``tokenpilot calibrate --fit LOG ... --fleet FLEET.yaml --out PROFILE.yaml`` and
``tokenpilot calibrate --fit-phases CSV --gpu G --model M --tp N --out PROFILE.yaml``: a fitted
profile.

Plain functions; ``cli_cost.calibrate`` calls them when ``--fit`` or ``--fit-phases`` is given.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tokenpilot.calibrate.logs import LogError, read_log
from tokenpilot.calibrate.profile import Profile, write_profile
from tokenpilot.cluster import FleetError, load_fleet
from tokenpilot.output import Format, emit, fail, log


def calibrate_fit(logs: Sequence[Path], fleet: str | None, out: Path | None,
                  fmt: Format = Format.text) -> None:
    """Fit a calibration profile to measured logs of one instance kind; write it to ``out``."""
    from tokenpilot.calibrate.fit import FitError, fit

    if not fleet:
        raise fail("--fit needs --fleet FLEET.yaml: the instance kind the logs came from")
    if out is None:
        raise fail("--fit needs --out PROFILE.yaml: where to write the fitted profile")
    if out.is_dir():
        raise fail(f"--out {out} is a directory; give a file name such as {out / 'profile.yaml'}")
    try:
        spec = load_fleet(fleet)
    except FleetError as exc:
        raise fail(str(exc)) from None
    if len(spec.instances) != 1:
        raise fail(f"fleet {fleet} has {len(spec.instances)} instance kinds; --fit needs a fleet "
                   "of the one kind the logs came from")
    inst = spec.instances[0]
    if inst.count != 1:
        raise fail(f"fleet {fleet} has {inst.count} instances; each log is replayed on one "
                   "instance, so --fit needs a fleet of one (count: 1) and one log per server")
    if inst.role != "both":
        raise fail(f"fleet {fleet} has a role: {inst.role} instance; --fit replays each log on "
                   "one colocated instance, so the fleet's instance needs role: both")
    try:
        measured = [read_log(p) for p in logs]
    except LogError as exc:
        raise fail(str(exc)) from None
    log(f"fitting {inst.gpu} x {inst.model} (max_num_seqs {inst.max_num_seqs}) to "
        f"{len(measured)} log(s), {sum(len(m.records) for m in measured)} requests")
    try:
        result = fit(inst, measured)
    except FitError as exc:
        raise fail(str(exc)) from None
    doc = result.to_dict()
    if not result.converged:
        emit(doc, fmt, _render)
        raise fail(f"{result.message}; no profile written", code=1)
    try:
        write_profile(out, Profile(result.calibration, inst.gpu, inst.model, doc))
    except OSError as exc:
        raise fail(f"cannot write {out}: {exc.strerror or exc}") from None
    doc["profile"] = str(out)
    emit(doc, fmt, _render)
    log(f"profile written to {out}")


def calibrate_fit_phases(path: Path, gpu: str | None, model: str | None, tp: Sequence[int],
                         out: Path | None, fmt: Format = Format.text) -> None:
    """Fit a calibration profile to per-phase timings (Splitwise layout); write it to ``out``."""
    from tokenpilot.calibrate.phases import PhaseError, fit_phases, read_phases
    from tokenpilot.costmodel import DoesNotFitError
    from tokenpilot.hardware import UnknownGPUError, get_gpu
    from tokenpilot.models import UnknownModelError, get_model

    for flag, value in (("--gpu G", gpu), ("--model M", model), ("--out PROFILE.yaml", out)):
        if not value:
            raise fail(f"--fit-phases needs {flag}")
    assert gpu and model and out is not None
    if out.is_dir():
        raise fail(f"--out {out} is a directory; give a file name such as {out / 'profile.yaml'}")
    bad = [t for t in tp if t < 1]
    if bad:
        raise fail(f"--tp must be a positive integer, got {bad[0]}")
    try:
        gpu_name, model_name = get_gpu(gpu).name, get_model(model).name
        rows = read_phases(path, sorted(set(tp)))
        log(f"fitting {gpu_name} x {model_name} to {len(rows)} per-phase rows from {path} "
            f"(tp {', '.join(str(t) for t in sorted({r.tp for r in rows}))})")
        result = fit_phases(rows, gpu_name, model_name)
    except (PhaseError, UnknownGPUError, UnknownModelError, DoesNotFitError) as exc:
        raise fail(str(exc)) from None
    doc = {**result.to_dict(), "gpu": gpu_name, "model": model_name, "csv": str(path),
           "calibration": result.calibration.to_dict()}
    if not result.converged:
        emit(doc, fmt, _render_phases)
        raise fail(f"{result.message}; no profile written", code=1)
    try:
        write_profile(out, Profile(result.calibration, gpu_name, model_name,
                                   {"fit_phases": result.to_dict(), "csv": str(path)}))
    except OSError as exc:
        raise fail(f"cannot write {out}: {exc.strerror or exc}") from None
    doc["profile"] = str(out)
    emit(doc, fmt, _render_phases)
    log(f"profile written to {out}")


def _render_phases(d: dict) -> str:
    lines = [f"fit: {d['message']} in {d['wall_s']:.1f} s ({d['rows']} rows"
             + (f", {d['excluded_prefill_rows']} prefill rows faster than the 100%-of-peak "
                "bound left out" if d["excluded_prefill_rows"] else "") + ")", "",
             f"{'parameter':<22} {'value':>10}"]
    for name in d["fitted"]:
        lines.append(f"{name:<22} {_fmt_value(name, d['calibration'][name]):>10}  fitted")
    for name, why in d["held"].items():
        lines.append(f"{name:<22} {_fmt_value(name, d['calibration'][name]):>10}  {why}")
    lines += ["", "mean |error| per phase (predicted vs measured):"]
    lines += [f"  {k:<14} {v:5.1f}%" for k, v in d["mape_pct"].items()]
    return "\n".join(lines)


def _fmt_value(name: str, v: float) -> str:
    return f"{v * 1e3:.3f} ms" if name.endswith("_s") else f"{v:.4f}"


def _render(d: dict) -> str:
    lines = [f"fit: {d['message']} in {d['wall_s']:.1f} s", "",
             f"{'parameter':<34} {'fitted':>10} {'start':>10} {'1-sigma':>8}  identified"]
    for name, p in d["params"].items():
        if p["identified"]:
            ident = "yes"
        elif p.get("trades_with") and abs(p["correlation"]) >= 0.3:
            ident = f"no: trades with {p['trades_with']} (correlation {p['correlation']:+.2f})"
        else:
            ident = "no: the measured times hardly depend on it (held near its start)"
        lines.append(f"{name:<34} {_fmt_value(name, p['value']):>10} "
                     f"{_fmt_value(name, p['start']):>10} {p['rel_uncertainty'] * 100:7.1f}%  "
                     f"{ident}")
    for name, why in d["held"].items():
        lines.append(f"{name:<34} {'held':>10}  {why}")
    lines += ["", "residual per log (simulated vs measured):",
              f"{'log':<32} {'n':>4} {'TTFT p50':>18} {'TTFT p90':>18} {'TPOT p50':>18} "
              f"{'TPOT p90':>18} {'median |err|':>12}"]
    for lg in d["logs"]:
        cells = []
        for k in ("ttft_p50", "ttft_p90", "tpot_p50", "tpot_p90"):
            m, s = lg["measured"][k], lg["simulated"][k]
            err = lg["errors"].get(k)
            cells.append(f"{s * 1e3:7.1f}/{m * 1e3:.1f}ms" + (f" {err * 100:+.0f}%" if err is not
                                                             None else ""))
        name = lg["path"] if len(lg["path"]) <= 32 else "..." + lg["path"][-29:]
        lines.append(f"{name:<32} {lg['requests']:>4} " + " ".join(f"{c:>18}" for c in cells)
                     + f" {lg['median_abs_log_error'] * 100:11.1f}%")
    return "\n".join(lines)
