import json

import pytest
from builders import cli

FLEET = ("instances:\n  - {gpu: h100-sxm, model: llama-3.1-8b}\n"
         "  - {gpu: l40s, model: llama-3.1-8b}\n")
WL = "poisson:rps=4,n=80,prompt=600,output=100,prompt_cv=0.5"


@pytest.fixture
def fleet(tmp_path):
    f = tmp_path / "fleet.yaml"
    f.write_text(FLEET)
    return str(f)


def test_simulate_json_shape(fleet):
    r = cli("simulate", "--fleet", fleet, "--workload", WL, "--router", "least-tokens",
            "--load", "0.5", "--format", "json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["load"] == pytest.approx(0.5)
    m = d["metrics"]
    assert m["router"] == "least-tokens" and m["requests"] == 80 and m["served"] == 80
    for key in ("ttft", "tpot", "itl", "e2e"):
        assert set(m[key]) == {"p50", "p90", "p99", "mean"}
    for key in ("goodput_rps", "throughput_rps", "kv_hit_rate", "imbalance_requests",
                "imbalance_tokens", "fake_balance", "preempt_recompute", "preempt_swap"):
        assert key in m
    assert [i["name"] for i in m["instances"]] == ["h100-sxm-0", "l40s-0"]
    assert sum(i["requests"] for i in m["instances"]) == 80
    assert set(d["by_gpu"]) == {"h100-sxm", "l40s"}


def test_simulate_text(fleet):
    r = cli("simulate", "--fleet", fleet, "--workload", WL, "--router", "round-robin")
    assert r.exit_code == 0, r.output
    for word in ("TTFT", "goodput", "fake-balance", "h100-sxm-0", "bandwidth"):
        assert word in r.stdout


def test_compare_table_and_report(fleet, tmp_path):
    out = tmp_path / "rep"
    r = cli("compare", "--routers", "round-robin,earliest-completion", "--fleet", fleet,
            "--workload", WL, "--load", "0.7", "--report", str(out), "--format", "json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert [x["router"] for x in d["runs"]] == ["round-robin", "earliest-completion"]
    for name in ("index.html", "latency_cdf.png", "instances_round-robin.png",
                 "instances_earliest-completion.png", "metrics.json"):
        assert (out / name).stat().st_size > 0, name
    assert "latency_cdf.png" in (out / "index.html").read_text()
    text = cli("compare", "--routers", "round-robin,least-requests", "--fleet", fleet,
               "--workload", WL)
    assert text.exit_code == 0, text.output
    assert "round-robin" in text.stdout and "least-requests" in text.stdout
    assert "fake bal" in text.stdout


@pytest.mark.parametrize("args, msg", [
    (["--fleet", "no-such-fleet"], "unknown fleet"),
    (["--fleet", "missing.yaml"], "not found"),
    (["--workload", "poisson:rps=x"], "bad workload spec"),
    (["--router", "nope"], "unknown router"),
    (["--load", "-1"], "--load must be positive"),
])
def test_bad_input_exits_2(args, msg, fleet):
    base = {"--fleet": fleet, "--workload": WL, "--router": "round-robin"}
    for k, v in zip(args[::2], args[1::2], strict=True):
        base[k] = v
    r = cli("simulate", *[x for kv in base.items() for x in kv])
    assert r.exit_code == 2, r.output
    assert r.stderr.startswith("error: ") and msg in r.stderr
    assert "Traceback" not in r.output


def test_bad_fleet_file_exits_2(tmp_path):
    f = tmp_path / "bad.yaml"
    f.write_text("instances:\n  - {gpu: h100-sxm}\n")
    r = cli("compare", "--fleet", str(f), "--workload", WL)
    assert r.exit_code == 2 and "instances[0]: missing required key 'model'" in r.stderr


PD_FLEET = ("instances:\n  - {gpu: h100-sxm, model: llama-3.1-8b, role: prefill, name: p}\n"
            "  - {gpu: h100-sxm, model: llama-3.1-8b, role: decode, count: 2, name: d}\n")


def test_simulate_runs_a_role_fleet_disaggregated(tmp_path):
    f = tmp_path / "pd.yaml"
    f.write_text(PD_FLEET)
    r = cli("simulate", "--fleet", str(f), "--workload", WL, "--router", "least-tokens",
            "--format", "json")
    assert r.exit_code == 0, r.output
    m = json.loads(r.stdout)["metrics"]
    assert m["router"] == "pd:least-tokens/least-tokens" and m["served"] == 80
    assert [i["name"] for i in m["instances"]] == ["p-0", "d-0", "d-1"]


def test_a_role_fleet_it_cannot_honour_is_one_line(tmp_path):
    f = tmp_path / "p.yaml"
    f.write_text("instances:\n  - {gpu: h100-sxm, model: llama-3.1-8b, role: prefill}\n")
    for cmd in ("simulate", "compare"):
        r = cli(cmd, "--fleet", str(f), "--workload", WL)
        assert r.exit_code == 2
        assert r.stderr.strip() == ("error: a fleet with role: prefill instances needs at "
                                    "least one role: decode instance to hand requests to")
