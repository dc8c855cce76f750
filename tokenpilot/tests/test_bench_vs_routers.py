"""benchmarks/bench_vs_routers.py in --quick mode against tokenpilot alone, so it cannot rot.

The real script, as a user runs it: four `tokenpilot sim-backend` processes, the gateway as
`tokenpilot serve`, on loopback (in a network namespace of its own where unshare allows). A peer
that is not installed must be reported as skipped, not dropped silently.
"""

from __future__ import annotations

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
    (["--reps", "0"], "--reps and --samples must be at least 1"),
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
