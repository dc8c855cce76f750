"""``tokenpilot plan``: SLO and GPU parsing, the MILP, the rate search, a whole plan whose fleet
file ``simulate`` accepts, headroom, executors that agree, and one-line errors."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from builders import cli

from tokenpilot.cluster import load_fleet
from tokenpilot.plan import (
    SLO,
    Bucket,
    Kind,
    PlanError,
    ProfilePoint,
    RateTable,
    Sweep,
    candidates,
    make_plan,
    parse_gpus,
    parse_slo,
    solve,
)
from tokenpilot.plan.profile import REL_TOL, search_rate
from tokenpilot.plan.slo import load_prices, price_of
from tokenpilot.workload import load_workload

# Small requests at a rate one H100 carries but one L40S does not: a plan has choices.
WL = "poisson:rps=30,n=400,prompt=300,output=40,prompt_cv=0.5,output_cv=0.5"
M = "llama-3.1-8b"


def test_slo_strings():
    assert parse_slo("ttft=1s,tpot=100ms") == SLO(1.0, 0.1, 0.99)
    assert parse_slo("tpot=50ms, ttft=0.5, attainment=95%") == SLO(0.5, 0.05, 0.95)
    assert parse_slo("ttft=250us,tpot=1ms,attainment=0.9").ttft_s == pytest.approx(250e-6)
    for bad, word in [("ttft=1s", "missing required key 'tpot'"),
                      ("ttft=fast,tpot=1ms", "not a duration"),
                      ("ttft=1s,tpot=0ms", "positive"),
                      ("ttft=1s,tpot=1ms,attainment=2", "(0, 1]"),
                      ("ttft=1s,tpt=1ms", "did you mean 'tpot'"), ("1s", "KEY=VALUE"),
                      ("ttft=1s,ttft=2s,tpot=1ms", "twice")]:
        with pytest.raises(PlanError, match="bad --slo") as e:
            parse_slo(bad)
        assert word in str(e.value), (bad, str(e.value))


def test_gpu_names_and_prices(tmp_path):
    assert parse_gpus("H100, l40s,h100-sxm") == ["h100-sxm", "l40s"]
    with pytest.raises(PlanError) as e:
        parse_gpus("h100-sxn")
    assert "nearest: h100-sxm" in str(e.value) and "known GPUs: " in str(e.value)
    f = tmp_path / "prices.yaml"
    f.write_text("h100: 2.0\nmi300x: 3.5\n")
    prices = load_prices(f)
    assert prices == {"h100-sxm": 2.0, "mi300x": 3.5}
    assert price_of("h100-sxm", prices) == 2.0 and price_of("l40s", prices) == 1.86
    with pytest.raises(PlanError, match="no public price"):
        price_of("mi300x", {})
    f.write_text("h100: free\n")
    with pytest.raises(PlanError, match="positive number"):
        load_prices(f)


def _table(rates: list[list[float]], shares: list[float]) -> RateTable:
    """A rate table of kinds A, B, ... (one per column) over buckets (rows)."""
    kinds = [Kind(g, 1, M) for g in ("h100-sxm", "l40s", "a100-80gb")[:len(rates[0])]]
    buckets = [Bucket(i, 0, None, 0, None, 1, s, 1.0, 1.0) for i, s in enumerate(shares)]
    points = [ProfilePoint(k, "both", b, rates[b][j], 1.0, 1)
              for b in range(len(shares)) for j, k in enumerate(kinds)]
    return RateTable(kinds, buckets, ["both"], points)


def test_milp_mixes_kinds_when_it_is_cheaper():
    # 20 req/s, half in each bucket. Bucket 0 runs 10/s on the $3 kind, 5/s on the $1 kind;
    # bucket 1 only on the $3 kind, 5/s. All on the $3 kind: 1 + 2 = 3 instances, $9; bucket
    # 0 on two $1 instances beside two $3 ones: $8. Checked against enumeration.
    table = _table([[10.0, 5.0], [5.0, 0.0]], [0.5, 0.5])
    costs = [3.0, 1.0]
    best = solve(table, costs, 20.0)
    assert best is not None
    brute = math.inf
    for a in range(6):
        for b in range(10):
            # Bucket 1 takes 2 of kind A's instances; what is left of A serves bucket 0.
            if a >= 2 and (a - 2) * 10 + b * 5 >= 10 - 1e-9:
                brute = min(brute, 3 * a + b)
    assert best.cost_per_hour == pytest.approx(brute) == 8
    assert best.describe() == "2x h100-sxm + 2x l40s"
    cands = candidates(table, costs, 20.0, alternatives=2)
    assert cands[0].counts == best.counts
    costs_seen = [c.cost_per_hour for c in cands if c.source.startswith("milp")]
    assert costs_seen == sorted(set(costs_seen))  # each alternative dearer than the last
    singles = [c for c in cands if c.single_type]  # "single ..." or a MILP answer already
    assert [c.describe() for c in singles] == ["3x h100-sxm"]  # l40s cannot serve bucket 1
    assert table.unserved([1])[0][1].index == 1


def test_rate_search_finds_the_threshold():
    for cliff in (3.0, 37.0, 400.0):
        def run(rate: float, cliff: float = cliff) -> float:
            return 1.0 if rate <= cliff else 0.5
        rate, att, probes = search_rate(run, 40.0, 0.99)
        assert cliff / (1 + REL_TOL) <= rate <= cliff and att == 1.0 and probes < 20
    rate, att, _ = search_rate(lambda r: 0.2, 40.0, 0.99)
    assert rate == 0.0 and att == 0.2


def test_plan_end_to_end_gives_a_fleet_simulate_accepts(tmp_path):
    out, rep = tmp_path / "fleet.yaml", tmp_path / "rep"
    r = cli("plan", "--workload", WL, "--slo", "ttft=1s,tpot=100ms", "--gpus",
            "h100-sxm,l40s", "--workers", "1", "--out", str(out), "--report", str(rep),
            "--format", "json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    chosen = d["chosen"]
    assert chosen["meets"] and chosen["attainment"] >= 0.99
    assert chosen["cost_per_hour"] == min(c["cost_per_hour"] for c in d["candidates"]
                                          if c["meets"])
    assert d["fleet"] == yaml.safe_load(out.read_text())
    fleet = load_fleet(str(out))  # a valid fleet file
    assert fleet.size >= 1
    sources = " ".join(c["source"] for c in d["candidates"])
    assert "milp" in sources and "single h100-sxm" in sources
    assert d["baseline"] is not None and d["saving"]["per_hour"] >= -1e-9
    assert all(p["probes"] > 0 for p in d["profiles"])
    for name in ("index.html", "cost_attainment.png", "plan.json", "fleet.yaml"):
        assert (rep / name).stat().st_size > 0, name
    sim = cli("simulate", "--fleet", str(out), "--workload", WL, "--format", "json")
    assert sim.exit_code == 0, sim.output
    assert json.loads(sim.stdout)["metrics"]["slo_attainment"] == pytest.approx(
        chosen["attainment"])


def test_a_plan_the_milp_undersizes_is_grown_in_simulation():
    # Bursts (Gamma inter-arrivals, CV 8) that the Poisson profiles average away: the MILP's
    # answer misses the SLO in simulation and is grown, one bottleneck instance at a time.
    reqs = load_workload("gamma:rps=30,cv=8,n=600,prompt=300,output=40,prompt_cv=0.5,"
                         "output_cv=0.5")
    plan = make_plan(reqs, SLO(0.5, 0.1, 0.99), [Kind("l40s", 1, M)], [1.86], Sweep("serial"),
                     alternatives=0)
    first = plan.tried[0]
    assert first.candidate.source.startswith("milp") and not first.verdict.meets
    chosen = plan.chosen
    assert chosen is not None and chosen.verdict.meets
    assert chosen.candidate.cost_per_hour > first.candidate.cost_per_hour
    assert all("added 1x l40s (bottleneck" in h for h in chosen.candidate.history)
    assert len(chosen.candidate.history) == chosen.candidate.counts[0][2] - \
        first.candidate.counts[0][2]
    cheaper = [t for t in plan.tried if t.candidate.cost_per_hour < chosen.candidate
               .cost_per_hour]
    assert cheaper and not any(t.verdict.meets for t in cheaper)


def test_check_reports_headroom_and_the_saturating_gpu(tmp_path):
    f = tmp_path / "fleet.yaml"
    f.write_text(f"instances:\n  - {{gpu: l40s, model: {M}}}\n  - {{gpu: h100-sxm, model: {M}}}\n")
    r = cli("plan", "--check", str(f), "--workload", WL, "--slo", "ttft=1s,tpot=100ms",
            "--workers", "1", "--format", "json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    runs = {x["scale"]: x for x in d["runs"]}
    assert runs[d["headroom"]]["meets"] and not runs[d["breaks_at"]]["meets"]
    assert d["breaks_at"] / d["headroom"] <= 1.05 + 1e-9
    assert d["saturates_first"]["kind"] in ("l40s", "h100-sxm")
    assert d["saturates_first"]["misses"] > 0


def _sweep_summary(sweep: Sweep) -> list:
    """Every profile point and verdict of a small plan, as plain values."""
    reqs = load_workload(WL.replace("n=400", "n=200"))
    kinds, costs = [Kind("l40s", 1, M), Kind("l40s", 2, M)], [1.86, 3.72]
    p = make_plan(reqs, SLO(1.0, 0.1, 0.99), kinds, costs, sweep, max_steps=1, probe_cap=600)
    return [(pt.kind, pt.bucket, pt.rate, pt.attainment) for pt in p.points] + [
        (t.candidate.counts, t.verdict.attainment, t.verdict.ttft_p99) for t in p.tried]


def test_local_processes_agree_with_serial():
    assert _sweep_summary(Sweep("serial")) == _sweep_summary(Sweep("local", workers=2))


RAY_CHILD = """
import sys
sys.path.insert(0, sys.argv[1])
import ray
from test_plan import _sweep_summary
from tokenpilot.plan import Sweep
try:
    print(repr(_sweep_summary(Sweep("ray", ray_cpus=2))))
finally:
    ray.shutdown()
"""


def _in_loopback_namespace(argv: list[str]) -> list[str]:
    """argv run in a network namespace of its own that has only loopback: Ray's servers (GCS,
    raylet) listen on every interface whatever address they are given, so the test gives them
    none but 127.0.0.1."""
    return ["unshare", "--net", "--", "sh", "-c", 'ip link set lo up && exec "$@"', "sh", *argv]


@pytest.mark.e2e  # a local Ray starts its own servers (GCS, raylet)
def test_ray_agrees_with_serial():
    pytest.importorskip("ray", reason="Ray is not installed: pip install "
                        "'tokenpilot[ray]' (make setup installs it)")
    probe = subprocess.run(_in_loopback_namespace(["true"]), capture_output=True)
    if probe.returncode != 0:
        pytest.skip("cannot make a loopback-only network namespace (unshare --net needs root); "
                    "Ray's servers would listen beyond 127.0.0.1")
    tests = str(Path(__file__).parent)
    run = subprocess.run(_in_loopback_namespace([sys.executable, "-c", RAY_CHILD, tests]),
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.strip().splitlines()[-1] == repr(_sweep_summary(Sweep("serial")))


@pytest.mark.parametrize("args, words", [
    (["--slo", "ttft=1s"], ["bad --slo", "missing required key 'tpot'"]),
    (["--gpus", "h100-sxm,l40z"], ["unknown GPU 'l40z'", "nearest: l40s", "known GPUs"]),
    (["--slo", "ttft=1ms,tpot=100ms"], ["infeasible", "bucket prompt", "requests"]),
    (["--tp", "3"], ["--tp 3 does not divide"]),
    (["--executor", "dask"], ["unknown executor 'dask'"]),
    (["--model", "no-such-model"], ["no-such-model"]),
])
def test_bad_input_is_one_line(args, words):
    base = {"--workload": WL, "--gpus": "h100-sxm", "--workers": "1"}
    for k, v in zip(args[::2], args[1::2], strict=True):
        base[k] = v
    r = cli("plan", *[x for kv in base.items() for x in kv])
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output
    err = r.stderr.strip().splitlines()[-1]
    assert err.startswith("error: ")
    for w in words:
        assert w in err, (w, err)


def test_pd_plans_prefill_and_decode_pools():
    reqs = load_workload(WL.replace("n=400", "n=200"))
    plan = make_plan(reqs, SLO(1.0, 0.1, 0.99), [Kind("h100-sxm", 1, M)], [2.99],
                     Sweep("serial"), pd=True, alternatives=0, max_steps=0, probe_cap=400)
    assert {p.side for p in plan.points} == {"both", "prefill", "decode"}
    pd = [t for t in plan.tried if t.candidate.source.startswith("pd")]
    assert pd, [t.candidate.source for t in plan.tried]
    roles = [role for _, role, _ in pd[0].candidate.counts]
    assert roles.index("prefill") < roles.index("decode")
    assert [g.role for g in pd[0].verdict.groups] == roles
    doc = pd[0].candidate.fleet_doc()
    assert load_fleet_doc(doc).size == sum(n for _, _, n in pd[0].candidate.counts)


def load_fleet_doc(doc: dict):
    from tokenpilot.cluster import fleet_from_dict

    return fleet_from_dict(doc)


def test_check_refuses_a_fleet_simulation_cannot_run(tmp_path):
    f = tmp_path / "fleet.yaml"
    f.write_text(f"instances:\n  - {{gpu: h100-sxm, model: {M}, role: prefill}}\n")
    r = cli("plan", "--check", str(f), "--workload", WL, "--workers", "1")
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert "needs at least one role: decode instance" in r.stderr
    r = cli("plan", "--check", str(tmp_path / "none.yaml"), "--workload", WL)
    assert r.exit_code == 2 and "not found" in r.stderr


def test_ray_missing_is_a_one_line_error(monkeypatch):
    import sys

    from tokenpilot.plan import SweepError

    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    with pytest.raises(SweepError, match=r"needs Ray: pip install 'tokenpilot\[ray\]'"):
        Sweep("ray").map(lambda shared, t: t, [1, 2])
