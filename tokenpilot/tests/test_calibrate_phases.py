"""calibrate --fit-phases: the per-phase CSV reader and its errors, the fit on timings the cost
model made with known parameters, the Splitwise TP2+TP4 -> TP8 prediction, a profile moved to
another GPU, a fit that fails, and what calibrate --report shows."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from builders import cli

from tokenpilot.calibrate import load_profile
from tokenpilot.calibrate.harness import save_record
from tokenpilot.calibrate.phases import (
    PhaseError,
    PhaseRow,
    fit_phases,
    phase_errors,
    phase_ms,
    read_phases,
)
from tokenpilot.costmodel import CostModel
from tokenpilot.fidelity import SPLITWISE, fidelity_dir
from tokenpilot.hardware import get_gpu
from tokenpilot.models import get_model

GPU, MODEL = "a100-80gb", "llama-2-70b"
HEADER = "prompt_size,batch_size,prompt_time,token_time,tensor_parallel\n"
needs_fidelity = pytest.mark.skipif(fidelity_dir() is None,
                                    reason="../shared/fidelity (beside the repository) is absent")


def _cm(tp, cal=None, gpu=GPU):
    return CostModel(get_model(MODEL), get_gpu(gpu), tp, calibration=cal)


def _truth():
    return replace(_cm(2).cal, flops_eff=0.55, attn_eff=0.5, bw_eff=0.62, step_overhead_s=3e-3,
                   seq_overhead_s=4e-4, allreduce_latency_s=2e-5, link_eff=0.35)


def _synthetic_csv(path, cal, tps=(2, 4)):
    lines = [HEADER]
    for tp in tps:
        cm = _cm(tp, cal)
        for p in (128, 512, 2048, 8192):
            for b in (1, 4, 16):
                pre, tok = phase_ms(cm, p, b)
                lines.append(f"{p},{b},{pre},{tok},{tp}\n")
    path.write_text("".join(lines))
    return path


# ---- the reader ------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "tp", "error"), [
    ("prompt_size,batch_size,prompt_time\n1,1,1\n", (2,), "missing column(s) token_time"),
    (HEADER + "512,1,-3,50,2\n", (2,), "row 1: prompt_time must be a positive time in ms"),
    (HEADER + "512,1,30,50,2\n512,x,30,50,2\n", (2,), "row 2: prompt_size, batch_size, "),
    (HEADER + "512,0,30,50,2\n", (2,), "row 1: batch_size must be a positive whole number"),
    (HEADER + "512,1,30,50,2\n", (8,), "no rows at tp 8"),
    ("prompt_size,batch_size,prompt_time,token_time\n512,1,30,50\n", (2, 4),
     "has no tensor_parallel column"),
])
def test_bad_csv_gets_one_line_naming_the_row(tmp_path, text, tp, error) -> None:
    f = tmp_path / "phases.csv"
    f.write_text(text)
    with pytest.raises(PhaseError, match=None) as exc:
        read_phases(f, tp)
    assert error in str(exc.value) and "\n" not in str(exc.value)


def test_without_a_tp_column_every_row_is_at_the_given_tp(tmp_path) -> None:
    f = tmp_path / "p.csv"
    f.write_text("prompt_size,batch_size,prompt_time,token_time,extra\n512,2,300,60,x\n")
    (row,) = read_phases(f, (4,))
    assert row == PhaseRow(1, 4, 512, 2, 1, 300.0, 60.0)


# ---- the fit ---------------------------------------------------------------------------------
def test_the_fit_recovers_known_parameters_and_predicts_another_tp(tmp_path) -> None:
    truth = _truth()
    rows = read_phases(_synthetic_csv(tmp_path / "t.csv", truth), (2, 4))
    res = fit_phases(rows, GPU, MODEL)
    assert res.converged, res.message
    assert set(res.fitted) == {"flops_eff", "attn_eff", "bw_eff", "step_overhead_s",
                               "seq_overhead_s", "allreduce_latency_s", "link_eff"}
    assert max(res.errors.values()) < 1.0  # % on the rows it was fitted on
    # The overheads and attn_eff trade with each other on these 48 rows; the efficiencies the
    # prefill and the decode steps show are pinned.
    for name in ("flops_eff", "bw_eff"):
        assert getattr(res.calibration, name) == pytest.approx(getattr(truth, name), rel=0.05)
    held = read_phases(_synthetic_csv(tmp_path / "t8.csv", truth, (8,)), (8,))
    assert max(phase_errors(held, MODEL, GPU, res.calibration).values()) < 3.0


def test_one_tp_holds_the_all_reduce_terms(tmp_path) -> None:
    rows = read_phases(_synthetic_csv(tmp_path / "t.csv", _truth(), (4,)), (4,))
    res = fit_phases(rows, GPU, MODEL)
    assert set(res.held) == {"allreduce_latency_s", "link_eff"}
    assert "one tp" in res.held["link_eff"]


@needs_fidelity
def test_splitwise_fit_on_tp2_and_tp4_predicts_tp8() -> None:
    """The issue's target is 15% per phase. Decode meets it (~7%); prefill is just over it
    (~16%; 25% before the fit took one point per shape and a Cauchy loss): at TP4 and TP8 the
    measured prefill slows by 40-60% per token above ~4k batched tokens, which the TP2 rows
    hardly show and the roofline's terms cannot extrapolate. Pinned so a change that moves it
    is seen."""
    path = fidelity_dir() / SPLITWISE
    res = fit_phases(read_phases(path, (2, 4)), GPU, MODEL)
    assert res.converged
    err = phase_errors(read_phases(path, (8,)), MODEL, GPU, res.calibration)
    assert err["decode tp8"] <= 15.0
    assert err["prefill tp8"] == pytest.approx(15.7, abs=1.5)


# ---- the command -----------------------------------------------------------------------------
def test_fit_phases_writes_a_profile_another_gpu_can_use(tmp_path) -> None:
    truth = _truth()
    csv = _synthetic_csv(tmp_path / "t.csv", truth)
    out = tmp_path / "a100.yaml"
    r = cli("calibrate", "--fit-phases", str(csv), "--gpu", GPU, "--model", MODEL, "--tp", "2",
            "--tp", "4", "--out", str(out), "--format", "json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["converged"] and doc["profile"] == str(out)
    assert set(doc["mape_pct"]) == {"prefill tp2", "decode tp2", "prefill tp4", "decode tp4"}
    prof = load_profile(out)
    assert prof.gpu == GPU and prof.model == MODEL
    # On an H100 the efficiencies carry over and the hardware figures are the H100's.
    r = cli("cost", "--model", MODEL, "--gpu", "h100-sxm", "--tp", "2", "--prompt-tokens",
            "4000", "--output-tokens", "50", "--calibration", str(out), "--format", "json")
    assert r.exit_code == 0, r.output
    h100 = _cm(2, prof.calibration, "h100-sxm")
    assert json.loads(r.stdout)["prefill_s"] == pytest.approx(h100.prefill_time(4000))
    a100 = _cm(2, prof.calibration).prefill_time(4000)
    assert h100.prefill_time(4000) < a100 / 2  # ~3x the dense bf16 peak


def test_a_fit_that_cannot_converge_writes_nothing(tmp_path) -> None:
    rows = ["prompt_size,batch_size,prompt_time,token_time\n"]
    rows += [f"{p},1,{p * 50.0},{1e5 / p}\n" for p in (128, 512, 2048, 8192)]  # no roofline
    csv = tmp_path / "odd.csv"
    csv.write_text("".join(rows))
    out = tmp_path / "p.yaml"
    r = cli("calibrate", "--fit-phases", str(csv), "--gpu", GPU, "--model", MODEL, "--tp", "2",
            "--out", str(out))
    assert r.exit_code == 1
    assert "did not converge" in r.stderr and "no profile written" in r.stderr
    assert not out.exists()


@pytest.mark.parametrize(("args", "error"), [
    (["--model", MODEL, "--tp", "2"], "--fit-phases needs --gpu G"),
    (["--gpu", GPU, "--tp", "2"], "--fit-phases needs --model M"),
    (["--gpu", "nope", "--model", MODEL, "--tp", "2"], "unknown"),
    (["--gpu", GPU, "--model", MODEL], "--fit-phases needs --tp N"),
    (["--gpu", GPU, "--model", MODEL, "--tp", "0"], "--tp must be a positive integer"),
])
def test_usage_errors_are_one_line(tmp_path, args, error) -> None:
    csv = _synthetic_csv(tmp_path / "t.csv", _truth())
    r = cli("calibrate", "--fit-phases", str(csv), *args, "--out", str(tmp_path / "p.yaml"))
    assert r.exit_code == 2
    assert error in r.stderr and len(r.stderr.strip().splitlines()) == 1


# ---- calibrate --report: every figure, with its source ----------------------------------------
@needs_fidelity
def test_report_shows_every_figure_with_its_source(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TOKENPILOT_STATE_DIR", str(tmp_path))
    r = cli("calibrate", "--report", "--format", "json")
    assert r.exit_code == 0, r.output
    figs = {f["name"]: f for f in json.loads(r.stdout)["figures"]}
    assert all(f["source"] for f in figs.values())
    assert "published static: catalog calibration" in figs
    assert figs["splitwise prefill: catalog calibration"]["n"] == 310
    held = figs["splitwise decode tp8: held out, fitted on tp2+tp4"]
    assert held["error_pct"] <= 15.0 and "--fit-phases" in held["note"]
    (harness,) = [f for n, f in figs.items() if n.startswith("llama.cpp")]
    assert harness["error_pct"] is None and "bench_sim_to_real.py" in harness["note"]
    # After a recorded harness run, its figures are shown instead.
    cfg = {"fit_slots": 2, "fit_rates": [0.25, 0.45], "predict_slots": 4, "predict_rate": 0.8,
           "predict_requests": 30}
    pct = {"ttft_p50": 0.1, "ttft_p90": 0.2, "tpot_p50": 0.05, "tpot_p90": 0.06}
    save_record({"config": cfg, "fit": {"message": "converged"}, "predict": {
        "errors": {"ttft_p50": -0.069, "tpot_p50": -0.052, "ttft_p90": -0.054,
                   "tpot_p90": -0.265}, "measured": pct, "predicted": pct,
        "uncalibrated_errors": {}}})
    r = cli("calibrate", "--report")
    assert r.exit_code == 0, r.output
    line = next(ln for ln in r.stdout.splitlines() if "ttft p50 of the predicted run" in ln)
    assert "-6.9%" in line and "met" in line
    assert str(tmp_path / "sim_to_real.json") in r.stdout
