"""benchmarks/bench_vs_routers.py in --quick mode against tokenpilot alone, so it cannot rot.

The real script, as a user runs it: four `tokenpilot sim-backend` processes, the gateway as
`tokenpilot serve`, on loopback (in a network namespace of its own where unshare allows). A peer
that is not installed must be reported as skipped, not dropped silently.
"""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_vs_routers.py"


@pytest.mark.parametrize("args, words", [
    (["--routers", "nginx:round_robin"], "bad --routers entry 'nginx:round_robin'"),
    (["--routers", "smg"], "give ROUTER:POLICY"),
    (["--reps", "0"], "--reps, --samples and --output must be at least 1"),
    (["--output", "0"], "--reps, --samples and --output must be at least 1"),
    (["--idle", "-1"], "--idle 0 to 600 s"),
])
def test_bad_input_is_one_line(args, words) -> None:
    r = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [r.stderr.strip()]
    assert r.stderr.startswith("error: ") and words in r.stderr


@pytest.mark.e2e  # starts backends and a gateway on 127.0.0.1
def test_quick_run_against_tokenpilot_alone(tmp_path) -> None:
    out = tmp_path / "figures.json"
    r = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--routers",
         "tokenpilot:round-robin,smg:least_load", "--peers-venv", str(tmp_path / "no-venv"),
         "--json", str(out)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    assert "Traceback" not in r.stderr
    data = json.loads(out.read_text())
    assert "not installed" in data["skipped"]["smg:least_load"]
    assert "smg:least_load: skipped: not installed" in r.stdout
    [run] = data["results"]["tokenpilot:round-robin"]
    assert run["requests"] >= 10 and run["ok"] == run["requests"], run
    # Counted by the backends themselves: every request answered reached one, and round-robin
    # spreads them evenly over the four.
    assert sum(run["per_backend"]) == run["ok"]
    assert max(run["per_backend"]) - min(run["per_backend"]) <= 2, run["per_backend"]
    assert 0 < run["slo_attainment"] <= 1
    assert run["cpu_per_request_s"] > 0
    assert all(math.isfinite(run[k]) for k in ("added_ttft_p50_s", "added_ttft_p99_s",
                                               "short_ttft_p50_s", "tpot_p99_s"))
    table = r.stdout[r.stdout.index("router:policy"):]
    assert "tokenpilot:round-robin" in table and "calibration" in table


@pytest.mark.e2e  # starts backends and a gateway on 127.0.0.1
def test_quick_split_run_asks_the_given_length_and_reads_idle_cpu(tmp_path) -> None:
    """--output (every request that many tokens), --no-overhead, --idle: the options that split
    the router's CPU into background, per request and per relayed token."""
    out = tmp_path / "figures.json"
    r = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--no-overhead", "--output", "7", "--idle",
         "0.5", "--routers", "tokenpilot:round-robin", "--json", str(out)],
        capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    data = json.loads(out.read_text())
    assert data["load"]["short_output"] == data["load"]["long_output"] == 7
    [run] = data["results"]["tokenpilot:round-robin"]
    assert run["requests"] >= 10 and run["ok"] == run["requests"], run
    assert math.isnan(run["added_ttft_p50_s"])  # no overhead phase: n/a in the table
    assert 0 <= run["idle_cpu_per_s"] < 1 and run["cpu_per_request_s"] > 0
    assert "idle CPU" in r.stdout


def test_unknown_workload_is_one_line() -> None:
    r = subprocess.run([sys.executable, str(SCRIPT), "--workload", "nope"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "unknown --workload 'nope'; known: mixed, prefill-skew" in r.stderr


def _bench():
    spec = importlib.util.spec_from_file_location("bench_vs_routers", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_vs_routers", mod)  # dataclasses look their module up
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(SCRIPT.parent))
    return mod


def test_distinct_prompts_share_no_prefix_on_the_wire() -> None:
    """A distinct workload's prompts, as replay writes them and a backend hashes them, share
    no block: no backend's prefix cache serves one request from another's prompt. The default
    workload's prompts are one filler text, so they all share their leading blocks."""
    from tokenpilot.gateway.text import prefix_hashes, synthetic_prompt

    bench = _bench()

    def first_blocks(load) -> list[int]:
        reqs = load.requests(0)[:50]
        return [prefix_hashes(synthetic_prompt(r.prompt_tokens, r.prefix_hashes,
                                               r.prefix_block_tokens))[0] for r in reqs]

    skew = bench.WORKLOADS["prefill-skew"]
    assert skew.distinct and len(set(first_blocks(skew))) == 50
    assert len(set(first_blocks(bench.WORKLOADS["mixed"]))) == 1
    # Across repetitions too: seed 1's prompts are not seed 0's.
    assert not {r.prefix_hashes for r in skew.requests(0)} & {
        r.prefix_hashes for r in skew.requests(1)}


@pytest.mark.e2e  # starts backends and a gateway on 127.0.0.1
def test_quick_run_of_a_named_workload(tmp_path) -> None:
    """--workload prefill-skew: its own fleet (one H100, three L4) and requests, the peers
    reported as skipped, and the line against the best peer says it had none to compare."""
    out = tmp_path / "figures.json"
    r = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--workload", "prefill-skew", "--routers",
         "tokenpilot:earliest-completion,vllm-router:power_of_two", "--peers-venv",
         str(tmp_path / "no-venv"), "--json", str(out)], capture_output=True, text=True,
        timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    data = json.loads(out.read_text())
    assert data["workload"] == "prefill-skew" and data["load"]["distinct"]
    assert data["load"]["fleet"] == ["h100-sxm", "l4", "l4", "l4"]
    assert "not installed" in data["skipped"]["vllm-router:power_of_two"]
    [run] = data["results"]["tokenpilot:earliest-completion"]
    assert run["requests"] >= 10 and run["ok"] == run["requests"], run
    assert len(run["per_backend"]) == 4 and sum(run["per_backend"]) == run["ok"]
    assert "workload prefill-skew: fleet: sim backends 1 H100, 3 L4" in r.stdout
    assert "reqs H100/L4/L4/L4" in r.stdout
    assert "vs the best peer: n/a" in r.stdout
