"""Figures that say what happened (issue 19): rates over the arrival window, exit codes that
follow the results."""

from __future__ import annotations

import dataclasses

import pytest

from tokenpilot.cluster import compute_metrics, simulate
from tokenpilot.cluster.fleet import fleet_from_dict
from tokenpilot.policy.routers import make_router
from tokenpilot.report import compare_table, metrics_json, simulate_text
from tokenpilot.workload import mean_rate, poisson

ONE_H100 = {"name": "one", "instances": [{"gpu": "h100-sxm", "model": "llama-3.1-8b"}]}


def test_one_straggler_does_not_halve_goodput_and_throughput():
    reqs = poisson(5, n=200, prompt=200, output=50)
    reqs[-1] = dataclasses.replace(reqs[-1], output_tokens=8000)  # finishes long after the rest
    m = compute_metrics(simulate(fleet_from_dict(ONE_H100, "one"), reqs,
                                 make_router("round-robin")), slo_ttft=1.0, slo_tpot=0.1)
    assert m.slo_attainment == 1.0
    assert m.makespan_s > 1.5 * m.arrival_window_s  # the drain tail is long
    assert m.goodput_rps == pytest.approx(mean_rate(reqs), rel=1e-9)
    assert m.throughput_rps == pytest.approx(mean_rate(reqs), rel=1e-9)
    assert m.goodput_makespan_rps < 0.7 * m.goodput_rps  # the figure kept beside
    text = simulate_text(metrics_json(m, fleet={"name": "one"}, fleet_desc="1 x h100-sxm",
                                      workload="poisson", capacity_rps=10.0, rate_rps=5.0,
                                      load=0.5))
    assert "arrival window" in text and "makespan" in text
    assert "arrival window" in compare_table([m]) and "makespan" in compare_table([m])


def test_bench_rates_are_over_the_arrival_window_and_the_verdict_follows_the_errors():
    from tokenpilot.loadgen import Record, summarize, verdict

    recs = [Record(i, "t", 100, 10, float(i), status=200, ttft_s=0.1, tpot_s=0.01, e2e_s=0.2)
            for i in range(10)]
    s = summarize(recs, wall_s=30.0)  # one straggler kept the run going to 30 s
    assert s["throughput_rps"] == pytest.approx(1.0) and s["goodput_rps"] == pytest.approx(1.0)
    assert s["throughput_wall_rps"] == pytest.approx(10 / 30)
    assert verdict(s, 0.1) is None
    recs[0].status, recs[0].error = 429, "slow down"
    recs[1].status, recs[1].error = 429, "slow down"
    s = summarize(recs, wall_s=30.0)
    assert "2 of 10 requests failed" in verdict(s, 0.1) and verdict(s, 0.2) is None
    for r in recs:
        r.status, r.error = 401, "missing key"
    assert "no request succeeded" in verdict(summarize(recs, 30.0), 1.0)


@pytest.mark.e2e
def test_bench_exits_1_and_says_why_when_every_request_fails():
    from builders import cli

    from tokenpilot.gateway.fleet import start_gateway, start_sims
    from tokenpilot.gateway.runner import ServerPool

    with ServerPool() as pool:
        sims = start_sims(pool, ("h100-sxm",), speedup=50)
        gw = start_gateway(pool, sims, "least-tokens", {"tenants": {"sk-a": "a"}})
        wl = ("-w", "poisson:rps=50,n=10,prompt=100,output=4")
        r = cli("bench", "-t", gw.url, *wl, "--model", "llama-3.1-8b")
        assert r.exit_code == 1, r.output
        assert "no request succeeded" in r.stderr
        row = next(line for line in r.stdout.splitlines() if line.startswith("401"))
        assert "100%" in row and "--api-key" in row
        r = cli("bench", "-t", sims[0].url, *wl, "--model", "nope")
        assert r.exit_code == 1 and "404" in r.stdout and "--model" in r.stdout
        ok = cli("bench", "-t", gw.url, *wl, "--api-key", "sk-a")
        assert ok.exit_code == 0, ok.output


@pytest.mark.e2e
def test_bench_on_ctrl_c_prints_what_it_measured_and_exits_130():
    import json
    import signal
    import subprocess
    import sys

    from builders import wait_until

    from tokenpilot.gateway.fleet import start_sims
    from tokenpilot.gateway.runner import ServerPool

    with ServerPool() as pool:
        (sim,) = start_sims(pool, ("h100-sxm",), speedup=50)
        p = subprocess.Popen(
            [sys.executable, "-m", "tokenpilot.cli", "bench", "-t", sim.url, "-w",
             "poisson:rps=20,n=2000,prompt=100,output=4", "-f", "json"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            # The backend counts a success as it answers, before the client has read it: a
            # loaded machine may leave a few answers in flight at the interrupt.
            wait_until(lambda: sim.app.state.sim.successes >= 10, "10 requests served", 30)
        finally:
            p.send_signal(signal.SIGINT)
            out, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert "interrupted" in err
    summary = json.loads(out)
    assert 5 <= summary["requests"] < 2000 and summary["ok"] >= 5


def _fake_scenario(passed: bool):
    from tokenpilot.scenarios import ScenarioResult

    def run_scenario(quick: bool = False) -> ScenarioResult:
        return ScenarioResult("fake", "a fake", ["x"], [{"x": 1}],
                              checks={"x >= 2; measured 1": passed, "x >= 0": True},
                              quick=quick)
    return run_scenario


def test_scenario_targets_decide_the_exit_code_with_check(monkeypatch):
    from builders import cli

    from tokenpilot.scenarios import SCENARIOS

    monkeypatch.setitem(SCENARIOS, "fake", _fake_scenario(False))
    r = cli("scenario", "fake")
    assert r.exit_code == 0 and "target MISS: x >= 2" in r.stdout  # reported, not judged
    r = cli("scenario", "fake", "--check")
    assert r.exit_code == 1 and "1 of 2 target(s) missed: x >= 2" in r.stderr
    monkeypatch.setitem(SCENARIOS, "fake", _fake_scenario(True))
    assert cli("scenario", "fake", "--check").exit_code == 0


def test_quick_scenarios_say_which_targets_they_do_not_evaluate(monkeypatch):
    import json

    from builders import cli

    from tokenpilot.scenarios import SCENARIOS

    monkeypatch.setitem(SCENARIOS, "fake", _fake_scenario(False))
    r = cli("scenario", "fake", "--quick")
    assert r.exit_code == 0 and "MISS" not in r.stdout and "PASS" not in r.stdout
    assert "targets not evaluated with --quick" in r.stdout and "x >= 2" in r.stdout
    assert json.loads(cli("scenario", "fake", "--quick", "-f", "json").stdout)[
        "checks_evaluated"] is False
    r = cli("scenario", "fake", "--quick", "--check")
    assert r.exit_code == 2 and "drop --quick" in r.stderr


def test_outputs_are_checked_before_any_simulation(tmp_path, monkeypatch):
    from builders import cli

    import tokenpilot.cli_sim
    from tokenpilot.scenarios import SCENARIOS

    def no_run(*a, **k):
        raise AssertionError("simulated before checking the report path")

    monkeypatch.setattr(tokenpilot.cli_sim, "simulate", no_run)
    monkeypatch.setitem(SCENARIOS, "fake", no_run)
    taken = tmp_path / "report.html"
    taken.write_text("mine")
    r = cli("compare", "-w", "poisson:rps=5,n=50", "--report", str(taken))
    assert r.exit_code == 2 and "is not a folder" in r.stderr, r.output
    r = cli("scenario", "fake", "--report", str(taken))
    assert r.exit_code == 2 and "is not a folder" in r.stderr, r.output
    assert taken.read_text() == "mine"


@pytest.mark.parametrize("slo", [("--slo-ttft", "0"), ("--slo-tpot", "-1")])
def test_an_slo_of_zero_is_an_error(slo):
    from builders import cli

    r = cli("simulate", "-w", "poisson:rps=5,n=50", *slo)
    assert r.exit_code == 2 and "must be a positive number of seconds" in r.stderr


def _demo_row(router, goodput, req_imb, tok_imb, by_gpu, p99):
    return {"router": router, "goodput_rps": goodput, "request_imbalance": req_imb,
            "token_imbalance": tok_imb, "requests_by_gpu": by_gpu, "ttft_p99_by_gpu": p99}


def test_the_demo_words_follow_its_numbers():
    from tokenpilot.demo import conclusions

    rr = _demo_row("round-robin", 30.0, 1.0, 1.8, {"h100": 100, "l40s": 100},
                   {"h100": 0.3, "l40s": 1.2})
    # The winner has the larger token imbalance: the words must not say even counts hide
    # uneven load; they say why idling the slow GPU is right, with the p99 that shows it.
    ec = _demo_row("earliest-completion", 33.0, 2.6, 2.3, {"h100": 190, "l40s": 10},
                   {"h100": 0.4, "l40s": 0.1})
    text = " ".join(conclusions({"rows": [rr, ec]}))
    assert "earliest-completion serves 33.00 req/s" in text and "(+10%)" in text
    assert "less even (2.33 vs 1.84)" not in text and "less even (2.30 vs 1.80)" in text
    assert "fewer requests to l40s" in text and "1200 ms" in text and "400 ms" in text
    assert "hide" not in text
    # The other way round: the winner evens out the load the loser's even counts hid.
    ec2 = _demo_row("earliest-completion", 33.0, 1.6, 1.1, {"h100": 150, "l40s": 50},
                    {"h100": 0.4, "l40s": 0.5})
    text = " ".join(conclusions({"rows": [rr, ec2]}))
    assert "round-robin's request counts are even (1.00) but its token load is not (1.80" in text
    assert "idle" not in text


def test_fake_balance_explains_the_gpus_its_winner_leaves_idle():
    import re

    from tokenpilot.scenarios import run

    res = run("fake-balance", quick=True)
    rows = {r["router"]: r for r in res.rows}
    idle = int(rows["earliest-completion"]["idle"].split("/")[0])
    assert rows["round-robin"]["idle"].startswith("0/")
    notes = [n for n in res.notes if n.startswith("earliest-completion leaves")]
    # Pricing what a request costs the batch it joins, earliest-completion may use every GPU:
    # then there is nothing to explain, and no note may claim otherwise.
    assert len(notes) == (1 if idle else 0)
    if idle:
        (note,) = notes
        ec = next(m for m in res.metrics if m.router == "earliest-completion")
        assert f"leaves {idle} of 8 instances idle" in note
        assert f"goodput {ec.goodput_rps:.1f}/s" in note and "round-robin's" in note
        right = "Idling the slow GPUs is right" in note
        rr = next(m for m in res.metrics if m.router == "round-robin")
        assert right == (ec.slo_attainment >= rr.slo_attainment)
    # One precision per column: every number in a column has as many decimals.
    lines = res.table().splitlines()
    body = lines[lines.index(next(x for x in lines if x.startswith("---"))) + 1:][:3]
    for col in zip(*(line.split() for line in body), strict=True):
        decimals = {len(c.split(".")[1]) if re.fullmatch(r"-?\d+\.\d+", c) else None
                    for c in col}
        assert len(decimals) == 1, col


def test_a_status_without_its_own_hint_gets_its_class_hint():
    from tokenpilot.loadgen import status_table

    table = status_table({"requests": 3, "by_status": {"422": 1, "500": 1, "400": 1},
                          "first_error": {"422": "bad field", "500": "boom", "400": "bad"}})
    lines = {line.split()[0]: line for line in table.splitlines()[1:]}
    assert "see the message" in lines["422"] and "see the message" in lines["400"]
    assert "see its logs" in lines["500"]
