"""The default ``tokenpilot tradeoff``, run twice with one seed: wall time and stability.

Targets (issue 26): the default run finishes in under 10 minutes on this machine, and its
quality figures are stable: two runs with the same seed give the same greedy agreement and
needle accuracy, and log-likelihood figures within 1%. Each run is the real command
(``python -m tokenpilot.cli tradeoff --format json``) in a child process, its own llama.cpp
servers included. The machine may be shared: a calibration figure (an empty Python loop) and
the load average are printed before and after each run, beside its wall time.

    python benchmarks/bench_tradeoff.py [--seed 0] [--options ...] [-- extra tradeoff flags]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import timeit

TARGET_S = 600.0
LL_TOLERANCE = 0.01


def calibration() -> float:
    """Seconds for 1M steps of an empty Python loop: the machine's speed just now."""
    return min(timeit.repeat("for i in range(10): pass", number=100000, repeat=5))


def machine() -> str:
    return f"calibration {calibration():.4f} s per 1M loop steps, load average " \
           f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"


def one_run(args: list[str]) -> tuple[dict, float]:
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "tokenpilot.cli", "tradeoff", "--format",
                           "json", *args], capture_output=True, text=True, timeout=2 * TARGET_S)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        sys.exit(f"tokenpilot tradeoff failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return json.loads(proc.stdout), wall


def figures(d: dict) -> dict[str, dict]:
    out = {}
    for r in d["rows"]:
        q = r.get("quality")
        if q is None:
            out[r["option"]] = {"not_run": True}
            continue
        out[r["option"]] = {"greedy_agreement": q["greedy_agreement"],
                            "needle_accuracy": q["needle_accuracy"],
                            "needle_by_depth": q["needle_by_depth"],
                            "loglik_per_token": q["loglik_per_token"],
                            "mean_kl": q["mean_kl"], "ppl_ratio": q["ppl_ratio"]}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("extra", nargs="*", help="further tokenpilot tradeoff flags (after --)")
    a = ap.parse_args()
    args = ["--seed", str(a.seed), *a.extra]
    runs = []
    for k in (1, 2):
        print(f"run {k}: before: {machine()}", flush=True)
        d, wall = one_run(args)
        print(f"run {k}: wall {wall:.0f} s (target < {TARGET_S:.0f} s); after: {machine()}",
              flush=True)
        runs.append((figures(d), wall))
    (f1, w1), (f2, w2) = runs
    ok = True
    print(f"\n{'option':<14} {'greedy agree':>13} {'needle acc':>11} {'loglik/token':>23} "
          f"{'mean KL':>17}")
    for name in f1:
        a1, a2 = f1[name], f2.get(name, {"not_run": True})
        if a1.get("not_run") or a2.get("not_run"):
            print(f"{name:<14} not run in both")
            ok = False
            continue
        same = (a1["greedy_agreement"] == a2["greedy_agreement"]
                and a1["needle_by_depth"] == a2["needle_by_depth"])
        ll = abs(a1["loglik_per_token"] - a2["loglik_per_token"]) / abs(a1["loglik_per_token"])
        ok &= same and ll <= LL_TOLERANCE
        print(f"{name:<14} {a1['greedy_agreement']:>6.1%} {a2['greedy_agreement']:>6.1%} "
              f"{a1['needle_accuracy']:>5.0%} {a2['needle_accuracy']:>5.0%} "
              f"{a1['loglik_per_token']:>11.5f} {a2['loglik_per_token']:>11.5f} "
              f"{a1['mean_kl']:>8.5f} {a2['mean_kl']:>8.5f}  "
              f"{'same' if same else 'DIFFERENT'}, loglik differs {100 * ll:.3f}%")
    ok &= max(w1, w2) < TARGET_S
    print(f"\nwall times {w1:.0f} s and {w2:.0f} s; stable and under {TARGET_S:.0f} s: "
          f"{'PASS' if ok else 'MISS'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
