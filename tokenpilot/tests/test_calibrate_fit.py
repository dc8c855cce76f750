"""calibrate --fit: the log reader and its errors, the fit on logs the simulator made with known
parameters, the profile round trip through simulate/cost/fleet files, and a fit that fails."""

from __future__ import annotations

import csv
import json
import math
from dataclasses import replace

import numpy as np
import pytest
import yaml
from typer.testing import CliRunner

from tokenpilot.calibrate import LogError, load_profile, read_log
from tokenpilot.calibrate.contention import (
    CpuShare,
    WaitClock,
    busiest_thread,
    to_own_time,
    to_wall_time,
)
from tokenpilot.calibrate.fit import ONE_SEQ_SERIAL, FitError, fit, one_seq_constant
from tokenpilot.calibrate.harness import fleet_doc, instance, synthetic_log
from tokenpilot.calibrate.logs import write_log
from tokenpilot.calibrate.record import poisson_requests
from tokenpilot.cli import app
from tokenpilot.cluster import FleetError, load_fleet

SPEC = instance(slots=2, ctx=512)
# A CPU-like truth on the serial CPU entry (each step streams the weights, then computes): a
# slower core than the catalog's cpu family (flops_eff 0.33, bw_eff 0.73), a per-sequence
# overhead of a millisecond; step_overhead_s is the catalog's (the fit holds it on a serial
# device: the weight stream is a per-step constant of the same shape).
TRUTH = replace(SPEC.cost_model().cal, flops_eff=0.25, bw_eff=0.5, seq_overhead_s=1e-3)


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def _records(log):
    return [{"arrival_s": r.arrival_s, "prompt_tokens": r.prompt_tokens,
             "output_tokens": r.output_tokens, "ttft_s": r.ttft_s,
             "tpot_s": r.tpot_s if r.tpot_s is not None else 0.0} for r in log.records]


@pytest.fixture(scope="module")
def synthetic():
    """Two 300-request logs at two low loads, made by the simulator under TRUTH."""
    return [synthetic_log(SPEC, TRUTH, poisson_requests(300, rate, (16, 64), (8, 32), seed))
            for rate, seed in ((0.3, 1), (0.6, 2))]


# ---- the log reader -------------------------------------------------------------------------
def test_csv_and_jsonl_with_either_pair_of_latency_columns(tmp_path) -> None:
    csv_path = tmp_path / "a.csv"
    csv_path.write_text("\ufeffarrival_s,prompt_tokens,output_tokens,ttft_s,tpot_s,extra\n"
                        "10.5,40,20,0.5,0.02,x\n10.0,30,1,0.4,,y\n")
    log = read_log(csv_path)
    assert [r.arrival_s for r in log.records] == [0.0, 0.5]  # sorted, from the first arrival
    assert log.records[0].tpot_s is None  # one output token: no time between tokens
    assert log.records[1].ttft_s == 0.5 and log.records[1].tpot_s == 0.02
    jl = tmp_path / "b.jsonl"
    jl.write_text(json.dumps({"arrival_s": 1.0, "prompt_tokens": 40, "output_tokens": 11,
                              "first_token_s": 1.5, "finish_s": 2.5}) + "\n\n")
    (r,) = read_log(jl).records
    assert r.ttft_s == pytest.approx(0.5) and r.tpot_s == pytest.approx(0.1)
    assert [q.prompt_tokens for q in read_log(jl).requests()] == [40]


@pytest.mark.parametrize(("text", "message"), [
    ("arrival_s,prompt_tokens,ttft_s,tpot_s\n0,1,1,1\n", "header: missing column output_tokens"),
    ("arrival_s,prompt_tokens,output_tokens\n0,1,1\n", "missing columns ttft_s, tpot_s"),
    ("arrival_s,prompt_tokens,output_tokens,first_token_s\n0,1,1,1\n",
     "missing column finish_s"),
    ("arrival_s,prompt_tokens,output_tokens,ttft_s,tpot_s\n0,5,3,0.1,0.01\n1,5,3,-0.2,0.01\n",
     "line 3: ttft_s is negative (-0.2)"),
    ("arrival_s,prompt_tokens,output_tokens,ttft_s,tpot_s\n0,5,0,0.1,0.01\n",
     "line 2: output_tokens is 0"),
    ("arrival_s,prompt_tokens,output_tokens,ttft_s,tpot_s\n0,five,3,0.1,0.01\n",
     "line 2: prompt_tokens: expected a number, got 'five'"),
    ("arrival_s,prompt_tokens,output_tokens,ttft_s,tpot_s\n0,5.5,3,0.1,0.01\n",
     "line 2: prompt_tokens: expected a whole number"),
    ("arrival_s,prompt_tokens,output_tokens,ttft_s,tpot_s\n", "the log has no requests"),
    ("", "the log is empty"),
])
def test_bad_csv_gets_one_line_naming_the_row(tmp_path, text, message) -> None:
    p = tmp_path / "bad.csv"
    p.write_text(text)
    with pytest.raises(LogError) as exc:
        read_log(p)
    assert message in str(exc.value) and str(exc.value).startswith(str(p))
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize(("row", "message"), [
    ({"arrival_s": 0, "prompt_tokens": 5, "output_tokens": 3, "first_token_s": 0.5,
      "finish_s": 0.4}, "line 1: finish_s (0.4) is before first_token_s (0.5)"),
    ({"arrival_s": 1, "prompt_tokens": 5, "output_tokens": 3, "first_token_s": 0.5,
      "finish_s": 0.9}, "first_token_s (0.5) is before arrival_s (1)"),
    ({"arrival_s": 0, "prompt_tokens": 5, "output_tokens": 3, "ttft_s": 0.5},
     "line 1: missing column tpot_s"),
    ({"arrival_s": 0, "prompt_tokens": 5, "output_tokens": 3}, "line 1: missing columns"),
])
def test_bad_jsonl_rows(tmp_path, row, message) -> None:
    p = tmp_path / "bad.jsonl"
    p.write_text(json.dumps(row) + "\n")
    with pytest.raises(LogError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_log(p)


def test_cli_bad_log_exits_2_with_one_line_and_writes_nothing(tmp_path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("arrival_s,prompt_tokens,output_tokens,ttft_s,tpot_s\n0,5,3,0.1,0.01\n"
                   "1,5,0,0.1,0.01\n")
    fleet = tmp_path / "fleet.yaml"
    fleet.write_text(yaml.safe_dump(fleet_doc(SPEC)))
    out = tmp_path / "profile.yaml"
    r = run("calibrate", "--fit", bad, "--fleet", fleet, "--out", out)
    assert r.exit_code == 2
    assert r.stderr == f"error: {bad}: line 3: output_tokens is 0; a request that generated " \
                       "nothing has no TTFT or TPOT\n"
    assert not out.exists()
    two = tmp_path / "two.yaml"
    two.write_text(yaml.safe_dump({"instances": [{**fleet_doc(SPEC)["instances"][0],
                                                  "count": 2}]}))
    pre = tmp_path / "prefill.yaml"
    pre.write_text(yaml.safe_dump({"instances": [{**fleet_doc(SPEC)["instances"][0],
                                                  "role": "prefill"}]}))
    for args, msg in ((["--fit", bad], "needs --fleet"),
                      (["--fit", bad, "--fleet", pre, "--out", out], "needs role: both"),
                      (["--fit", bad, "--fleet", fleet], "needs --out"),
                      (["--fit", tmp_path / "no.csv", "--fleet", fleet, "--out", out],
                       "cannot read log"),
                      (["--fit", bad, "--fleet", "mixed", "--out", out], "3 instance kinds"),
                      (["--fit", bad, "--fleet", two, "--out", out], "has 2 instances")):
        r = run("calibrate", *args)
        assert r.exit_code == 2 and r.stderr.startswith("error: ") and msg in r.stderr, r.stderr
        assert "Traceback" not in r.output and not out.exists()


# ---- the fit --------------------------------------------------------------------------------
def test_fit_recovers_known_parameters_and_says_what_it_cannot(synthetic) -> None:
    res = fit(SPEC, synthetic)
    assert res.converged, res.message
    assert res.wall_s < 60
    got = {p.name: p for p in res.params}
    assert set(got) == {"flops_eff", "bw_eff", "seq_overhead_s", ONE_SEQ_SERIAL}
    # The prompt-length slope of TTFT pins flops_eff; a one-token step's cost over a prompt
    # token's is the weight stream plus the overheads of one sequence, pinned whole.
    assert got["flops_eff"].identified
    assert got["flops_eff"].value == pytest.approx(TRUTH.flops_eff, rel=0.03)
    one = got[ONE_SEQ_SERIAL]
    assert one.identified
    assert one.value == pytest.approx(one_seq_constant(SPEC, TRUTH), rel=0.05)
    # Whatever the fit calls identified must be right (within 3 of its stated sigmas or 5%).
    for p in res.params:
        truth = getattr(TRUTH, p.name, one_seq_constant(SPEC, TRUTH))
        if p.identified:
            assert abs(p.value / truth - 1) <= max(3 * p.rel_uncertainty, 0.05), p
    for lf in res.logs:
        assert all(abs(e) < 0.02 for e in lf.errors().values()), lf
    assert set(res.held) == {"attn_eff", "allreduce_latency_s", "link_eff", "step_overhead_s"}
    assert "roofline: serial" in res.held["step_overhead_s"]


def test_a_serial_devices_step_constant_is_fitted_whole_whatever_its_split() -> None:
    """A truth with a larger fixed host time per step than the one held: bw_eff takes it up,
    so the per-step constant (weight stream + step overhead) is what comes back, and the
    fitted profile reproduces the logs (what the data can tell, it tells right)."""
    truth = replace(TRUTH, step_overhead_s=2e-3)
    logs = [synthetic_log(SPEC, truth, poisson_requests(150, rate, (16, 64), (8, 32), seed))
            for rate, seed in ((0.3, 1), (0.6, 2))]
    res = fit(SPEC, logs)
    assert res.converged, res.message
    held = SPEC.cost_model().cal.step_overhead_s
    assert held != truth.step_overhead_s  # so the value kept is the profile's, not the truth's
    assert res.calibration.step_overhead_s == held
    assert one_seq_constant(SPEC, res.calibration) == pytest.approx(
        one_seq_constant(SPEC, truth), rel=0.05)
    assert res.calibration.bw_eff < truth.bw_eff  # the extra host time, read as a slower stream
    for lf in res.logs:
        assert all(abs(e) < 0.03 for e in lf.errors().values()), lf


def test_lone_requests_read_the_step_ratio_the_simulator_made(synthetic) -> None:
    """The harness's physics check: requests that met no other one show a one-token step's
    cost in prompt tokens; on the simulator's own log it is the cost model's ratio, which the
    serial roofline (the weight stream in every step) puts well above the overlap one's."""
    from tokenpilot.calibrate.harness import lone_requests, step_ratio

    lone = lone_requests(synthetic[0])
    assert lone is not None and lone["requests"] >= 50
    assert lone["ratio"] == pytest.approx(step_ratio(SPEC, TRUTH), rel=0.05)
    assert step_ratio(SPEC, TRUTH) > 1.5  # stream + compute + LM head over one prompt token
    few = replace(synthetic[0], records=synthetic[0].records[:4])
    assert lone_requests(few) is None


def test_fit_that_cannot_converge_says_so(synthetic, tmp_path) -> None:
    assert not fit(SPEC, synthetic, max_evals=3).converged
    # TTFTs alternating between 10 ms and 10 s for the same kind of request: no calibration
    # reproduces that, and the CLI writes no profile.
    recs = _records(synthetic[0])
    for k, r in enumerate(recs):
        r["ttft_s"] = 0.01 if k % 2 else 10.0
    log = tmp_path / "wild.csv"
    write_log(log, recs)
    fleet = tmp_path / "fleet.yaml"
    fleet.write_text(yaml.safe_dump(fleet_doc(SPEC)))
    out = tmp_path / "p.yaml"
    r = run("calibrate", "--fit", log, "--fleet", fleet, "--out", out)
    assert r.exit_code == 1, r.output
    assert "did not converge" in r.stderr and "no profile written" in r.stderr
    assert not out.exists()


def test_cpu_share_and_the_wait_clock_read_the_schedulers_counters() -> None:
    with CpuShare() as c, WaitClock("self", busiest_thread("self"), interval_s=0.001) as clock:
        sum(i * i for i in range(300_000))
    f = c.figures
    assert f["cpu_s"] > 0 and 0 <= f["wait_share"] <= 1 and f["cores"] >= 1
    assert len(clock.t) >= 2 and all(np.diff(clock.wait) >= 0) and clock.wait[0] == 0


def test_own_clock_takes_the_waits_out_and_the_wall_clock_puts_them_back() -> None:
    """A server that waited 1 s for a core between 2 s and 3 s of the run: a request across
    that second took 1 s less of its own time; one after it is shifted 1 s, not stretched."""
    timeline = {"t": [0.0, 2.0, 3.0, 10.0], "wait": [0.0, 0.0, 1.0, 1.0]}
    recs = [{"arrival_s": 1.5, "prompt_tokens": 10, "output_tokens": 3, "ttft_s": 1.0,
             "tpot_s": 1.0, "first_token_s": 2.5, "finish_s": 4.5},
            {"arrival_s": 5.0, "prompt_tokens": 10, "output_tokens": 1, "ttft_s": 0.5,
             "tpot_s": 0.0, "first_token_s": 5.5, "finish_s": 5.5}]
    a, b = to_own_time(recs, timeline)
    assert a["arrival_s"] == 1.5 and a["first_token_s"] == pytest.approx(2.0)
    assert a["ttft_s"] == pytest.approx(0.5) and a["tpot_s"] == pytest.approx(0.75)
    assert b["arrival_s"] == pytest.approx(4.0) and b["ttft_s"] == pytest.approx(0.5)
    own = np.array([1.5, 2.0, 3.5, 4.0, 9.5, 12.0])
    assert list(to_wall_time(timeline, own)) == pytest.approx([1.5, 3.0, 4.5, 5.0, 10.5, 13.0])


def test_requests_the_instance_cannot_run_are_an_error(synthetic) -> None:
    with pytest.raises(FitError, match=r"request \d+ by arrival \(\d+ prompt \+ \d+ output "
                       r"tokens\) cannot run on this instance: .* exceed max_model_len 64"):
        fit(instance(slots=2, ctx=64), synthetic)


# ---- the profile, end to end through the command line ---------------------------------------
def test_cli_fit_then_simulate_and_cost_and_fleet_files_use_the_profile(synthetic,
                                                                        tmp_path) -> None:
    logs = []
    for k, (lg, suffix) in enumerate(zip(synthetic, (".csv", ".jsonl"), strict=True)):
        logs.append(tmp_path / f"log{k}{suffix}")
        write_log(logs[-1], _records(lg))
    fleet = tmp_path / "fleet.yaml"
    fleet.write_text(yaml.safe_dump(fleet_doc(SPEC)))
    out = tmp_path / "profile.yaml"
    r = run("calibrate", "--fit", logs[0], "--fit", logs[1], "--fleet", fleet, "--out", out)
    assert r.exit_code == 0, r.output
    for word in ("flops_eff", "identified", "residual per log", "log0.csv", "log1.jsonl"):
        assert word in r.stdout
    prof = load_profile(out)
    assert prof.gpu == SPEC.gpu and prof.fit["converged"]
    assert prof.calibration.flops_eff == pytest.approx(TRUTH.flops_eff, rel=0.03)

    workload = "poisson:rps=0.3,n=200,prompt=40,output=20"
    sim = [json.loads(run("simulate", "--fleet", fleet, "--workload", workload, "--format",
                          "json", *extra).stdout) for extra in ([], ["--calibration", out])]
    assert sim[1]["fleet"]["instances"][0]["calibration"] == str(out)
    # The fitted CPU is slower than the catalog's cpu family says.
    assert sim[1]["metrics"]["ttft"]["p50"] > 1.2 * sim[0]["metrics"]["ttft"]["p50"]

    base = ["cost", "--model", SPEC.model, "--gpu", SPEC.gpu, "--weight-dtype", "int4",
            "--prompt-tokens", "40", "--output-tokens", "20", "--format", "json"]
    plain, fitted = (json.loads(run(*base, *extra).stdout) for extra in
                     ([], ["--calibration", out]))
    want = SPEC.cost_model(prof.calibration).prefill_time(40)
    assert fitted["prefill_s"] == pytest.approx(want) and plain["prefill_s"] < want

    # A fleet file's instance names the profile, relative to the file itself.
    sub = tmp_path / "fleets"
    sub.mkdir()
    doc = fleet_doc(SPEC)
    doc["instances"][0]["calibration"] = "../profile.yaml"
    (sub / "f.yaml").write_text(yaml.safe_dump(doc))
    inst = load_fleet(str(sub / "f.yaml")).instances[0]
    assert inst.cost_model().cal == prof.calibration
    doc["instances"][0]["calibration"] = "missing.yaml"
    (sub / "g.yaml").write_text(yaml.safe_dump(doc))
    with pytest.raises(FleetError, match=r"instances\[0\]: calibration profile .*missing.yaml"):
        load_fleet(str(sub / "g.yaml"))
    r = run("simulate", "--fleet", fleet, "--workload", workload, "--calibration", logs[0])
    assert r.exit_code == 2 and "not a calibration profile" in r.stderr


# ---- sim-to-real on a real llama.cpp server ---------------------------------------------------
@pytest.mark.e2e
def test_sim_to_real_on_llama_cpp(smollm2, tmp_path) -> None:
    """Fit on two short low-load logs of a real server, predict a busier run on more slots.

    The benchmark (benchmarks/bench_sim_to_real.py) compares the prediction with the 15% target
    on 30-request runs. Here the runs are a few requests on a CPU that other work shares, whose
    speed drifts by up to 4x between runs (the harness's probe and wait figures show it), so a
    fixed tolerance would be flaky. What must hold: the recorder's logs are complete, each has
    its own-clock twin, the fit converges on real measurements and pins flops_eff, and the
    fitted profile predicts the held-out run within a factor of 2.5, on the wall clock and on
    the server's own one (the catalog's cpu family is itself such a fit, so beating it is no
    test).
    """
    from tokenpilot.calibrate.harness import HarnessConfig
    from tokenpilot.calibrate.harness import run as harness

    cfg = HarnessConfig(fit_requests=8, predict_requests=10)
    rep = harness(cfg, tmp_path, log=lambda _m: None)
    assert rep["fit"]["converged"], rep["fit"]["message"]
    for name, path in rep["logs"].items():
        log = read_log(path)
        assert len(log.records) == (cfg.predict_requests if name == "predict"
                                    else cfg.fit_requests)
        assert all(cfg.output[0] <= r.output_tokens <= cfg.output[1] for r in log.records)
    for name in rep["logs"]:  # the own-clock log is the wall-clock one less the waits
        # Row by row as written (read_log sorts by arrival, and arrivals inside one wait of
        # the server share an own-clock instant, so their sorted order may differ).
        wall, own = (list(csv.DictReader((tmp_path / f).read_text("utf-8").splitlines()))
                     for f in (f"{name}.csv", f"{name}.own.csv"))
        assert [r["output_tokens"] for r in wall] == [r["output_tokens"] for r in own]
        assert all(float(o["ttft_s"]) <= float(w["ttft_s"]) + 1e-3
                   for o, w in zip(own, wall, strict=True))
        read_log(tmp_path / f"{name}.own.csv")  # and it is a log the fit reads
        assert rep["cpu"][name]["cores"] >= 1 and rep["cpu"][name]["cpu_s"] > 0
    # A few requests on a CPU other work shares can leave flops_eff unpinned in one run (CI saw
    # it once in four): then the fit must say so and name the parameter it trades with, and the
    # prediction below must still hold.
    fe = rep["fit"]["params"]["flops_eff"]
    assert fe["identified"] or (fe["trades_with"] and fe["rel_uncertainty"] > 0), fe
    assert load_profile(tmp_path / "profile.yaml").gpu == "epyc-milan-core"
    pred = rep["predict"]
    for k in ("ttft_p50", "tpot_p50"):
        assert abs(math.log1p(pred["errors"][k])) < math.log(2.5), (k, pred)
        assert abs(math.log1p(pred["own_clock"]["errors"][k])) < math.log(2.5), (k, pred)
