"""Sim-to-real: fit a profile on a real llama.cpp server at two low loads, predict a third run.

SmolLM2-135M on llama.cpp on CPU (one thread per server) is the ground truth
(``tokenpilot.calibrate.harness`` says what is recorded, how the ``llama.cpp`` engine profile
models the server and what it only approximates). Prints the predicted and measured TTFT and
TPOT percentiles of the held-out run (more load, another slot count) and the error per metric;
the target is TTFT p50 and TPOT p50 within 15%. Real timings on a shared CPU are noisy: rerun
before trusting one figure. ``--speed`` times the fit of two 300-request logs the simulator made
itself (no llama.cpp needed).

Usage: python benchmarks/bench_sim_to_real.py [--out DIR] [--fit-requests N]
       [--predict-requests N] [--speed] [--json] [--from DIR]
(--from DIR fits and predicts again on the logs a run kept with --out DIR.)
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from tokenpilot.calibrate.fit import fit, one_seq_constant
from tokenpilot.calibrate.harness import (
    HarnessConfig,
    config_from_dict,
    instance,
    reanalyse,
    run,
    save_record,
    synthetic_log,
)
from tokenpilot.calibrate.record import RecordError, poisson_requests
from tokenpilot.llamafleet import LlamaUnavailable

METRICS = ("ttft_p50", "ttft_p90", "tpot_p50", "tpot_p90")
TARGET = 0.15


def speed() -> dict:
    spec = instance(2, 512)
    truth = replace(spec.cost_model().cal, flops_eff=0.25, bw_eff=0.5, seq_overhead_s=1e-3)
    logs = [synthetic_log(spec, truth, poisson_requests(300, rate, (16, 64), (8, 32), seed))
            for rate, seed in ((0.3, 1), (0.6, 2))]
    from bench_fleet_speed import calibration  # this folder is on sys.path (a script's own)

    calib = calibration()
    t0 = time.perf_counter()
    res = fit(spec, logs)
    wall = time.perf_counter() - t0
    print(f"fit of two 300-request logs: {wall:.1f} s, {res.evaluations} simulations; "
          f"{res.message} (calibration: {calib:.4f} s for 1M loop steps, min of 5; "
          f"{calibration():.4f} s after)")
    for p in res.params:
        print(f"  {p.name:<34} {p.value:.5g} (truth "
              f"{getattr(truth, p.name, one_seq_constant(spec, truth)):.5g})"
              f"  identified: {p.identified}")
    return {"fit_s": wall, "evaluations": res.evaluations, "converged": res.converged}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="keep the logs, fleets and profile here")
    ap.add_argument("--fit-requests", type=int, default=HarnessConfig.fit_requests)
    ap.add_argument("--predict-requests", type=int, default=HarnessConfig.predict_requests)
    ap.add_argument("--speed", action="store_true", help="only time the fit (no llama.cpp)")
    ap.add_argument("--json", action="store_true", help="print the whole report as JSON")
    ap.add_argument("--from", dest="from_dir", type=Path,
                    help="fit and predict again on the logs of an earlier run's --out (no server)")
    args = ap.parse_args()
    if args.speed:
        speed()
        return 0
    cfg = HarnessConfig(fit_requests=args.fit_requests, predict_requests=args.predict_requests)
    with tempfile.TemporaryDirectory(prefix="sim-to-real-") as tmp:
        out = args.out or Path(tmp)
        try:
            if args.from_dir:
                rep = reanalyse(args.from_dir, log=lambda m: print(m, file=sys.stderr))
                cfg = config_from_dict(rep["config"])
            else:
                rep = run(cfg, out, log=lambda m: print(m, file=sys.stderr, flush=True))
        except (RecordError, LlamaUnavailable, OSError, ValueError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
    if args.json:
        print(json.dumps(rep, indent=2))
    if "predict" not in rep:
        print(f"the fit did not converge: {rep['fit']['message']}")
        return 1
    print(f"calibration (the CPU each server got; {rep['threads']['server']} server thread, "
          f"{rep['threads']['cores']} cores usable; runs in time order):")
    for name, pr in rep["probes"].items():
        c = rep["cpu"][name]
        wait = "n/a" if c["wait_share"] is None else f"{c['wait_share'] * 100:.0f}%"
        print(f"  {name:<8} probe TTFT {pr['ttft_s'] * 1e3:.0f} ms ({pr['prompt_tokens']} "
              f"prompt tokens), TPOT {pr['tpot_s'] * 1e3:.1f} ms; the server waited for a "
              f"core {wait} of its runnable time ({c['cpu_s']:.0f} CPU s; its compute thread "
              f"waited {c.get('compute_thread_wait_s', float('nan')):.0f} s in "
              f"{c['wall_s']:.0f} s), load average {c['loadavg_1m']}")
    for name, p in rep["fit"]["params"].items():
        print(f"fitted {name:<34} {p['value']:.4g} (start {p['start']:.4g}, "
              f"1-sigma {p['rel_uncertainty'] * 100:.0f}%, "
              f"{'identified' if p['identified'] else 'NOT identified'})")
    print(f"fit: {rep['fit']['message']} in {rep['fit']['wall_s']:.2f} s")
    for lg in rep["fit"]["logs"]:
        errs = " ".join(f"{k} {v * 100:+.1f}%" for k, v in lg["errors"].items())
        print(f"fit residual {Path(lg['path']).name}: {errs}")
    for name, lone in rep.get("lone", {}).items():
        if lone:
            print(f"lone requests of {name} (own clock): {lone['requests']}, TTFT "
                  f"{lone['ttft_ms_per_prompt_token']:.1f} ms per prompt token, TPOT "
                  f"{lone['tpot_ms']:.1f} ms: a one-token step costs "
                  f"{lone['ratio']:.1f} prompt tokens (the fitted profile: "
                  f"{rep['step_ratio']:.1f})")
    p = rep["predict"]
    print(f"held-out run: {cfg.predict_requests} requests at {cfg.predict_rate} req/s on "
          f"{cfg.predict_slots} slots (fitted on {cfg.fit_slots} slots at {cfg.fit_rates} req/s)")
    print("predicted: fitted and simulated on the servers' own clocks (waits for a core taken "
          "out), then put back on the wall clock through the waits the held-out run met; "
          "own clock: both sides without the waits; blind: wall clocks throughout; catalog: "
          "the catalog's cpu family, unfitted")
    blind, own = rep.get("blind", {}), p["own_clock"]
    print(f"{'metric':<10} {'measured':>10} {'predicted':>10} {'error':>8} | {'own: meas':>10} "
          f"{'pred':>9} {'error':>8} | {'blind':>9} {'error':>8} | {'catalog':>9} {'error':>8}")
    for k in METRICS:
        b = (f"{blind['predicted'][k] * 1e3:7.1f}ms {blind['errors'][k] * 100:+7.1f}%"
             if blind else f"{'n/a':>9} {'':>8}")
        print(f"{k:<10} {p['measured'][k] * 1e3:8.1f}ms {p['predicted'][k] * 1e3:8.1f}ms "
              f"{p['errors'][k] * 100:+7.1f}% | {own['measured'][k] * 1e3:8.1f}ms "
              f"{own['predicted'][k] * 1e3:7.1f}ms {own['errors'][k] * 100:+7.1f}% | {b} | "
              f"{p['uncalibrated'][k] * 1e3:7.1f}ms {p['uncalibrated_errors'][k] * 100:+7.1f}%")
    print(f"figures kept in {save_record(rep)} (tokenpilot calibrate --report shows them)")
    hit = all(abs(p["errors"][k]) <= TARGET for k in ("ttft_p50", "tpot_p50"))
    print(f"target (TTFT p50 and TPOT p50 within {TARGET:.0%}): {'met' if hit else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
