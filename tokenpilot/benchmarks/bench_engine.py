"""CPU time and peak memory of the engine simulator on 100,000 Azure-conv-shaped requests.

Run from the repository root:

    .venv/bin/python tokenpilot/benchmarks/bench_engine.py [--requests 100000] [--load 0.8]
        [--model llama-3.1-8b] [--gpu h100-sxm] [--profile] [--skip-memory]

The Azure LLM 2023 conversation trace (shared/traces/azure_llm_2023_conv.csv) is tiled with
time offsets until it has ``--requests`` rows, then its arrivals are rescaled so the offered
rate is ``--load`` times the instance's capacity. Capacity is measured, not guessed: the
throughput (requests/s) of the same engine on a saturated burst of the first 4,000 requests.
Targets: <= 20 microseconds of CPU per simulated request, <= 500 MB peak memory.

The machine this runs on may be shared, so a calibration figure is printed too: the best time
of a trivial Python loop (``for i in range(10): pass``), to compare runs across load.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import resource
import sys
import time
import timeit
import tracemalloc

from tokenpilot.costmodel import CostModel
from tokenpilot.engine import COMPILED, Engine, EngineConfig
from tokenpilot.hardware import get_gpu
from tokenpilot.models import get_model
from tokenpilot.paths import shared_dir
from tokenpilot.workload import Request, load_azure


def tiled(base: list[Request], n: int) -> list[Request]:
    """``n`` requests: copies of ``base`` one after another, each shifted by its span."""
    span = base[-1].arrival - base[0].arrival
    gap = span / max(len(base) - 1, 1)
    out = []
    for i in range(n):
        r = base[i % len(base)]
        shift = (i // len(base)) * (span + gap)
        out.append(Request(i, r.arrival + shift, r.prompt_tokens, r.output_tokens))
    return out


def capacity_rps(cm: CostModel, reqs: list[Request]) -> float:
    burst = [Request(r.id, 0.0, r.prompt_tokens, r.output_tokens) for r in reqs[:4000]]
    eng = Engine(cm, EngineConfig())
    res = eng.run(burst)
    return len(res) / max(r.finish for r in res)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=100_000)
    ap.add_argument("--load", type=float, default=0.8)
    ap.add_argument("--model", default="llama-3.1-8b")
    ap.add_argument("--gpu", default="h100-sxm")
    ap.add_argument("--profile", action="store_true", help="print the top of a cProfile")
    ap.add_argument("--skip-memory", action="store_true",
                    help="skip the (slow) traced second run that measures the Python heap peak")
    args = ap.parse_args()
    shared = shared_dir()
    trace = shared / "traces" / "azure_llm_2023_conv.csv" if shared else None
    if trace is None or not trace.is_file():
        print("error: shared/traces/azure_llm_2023_conv.csv is absent", file=sys.stderr)
        return 2
    cm = CostModel(get_model(args.model), get_gpu(args.gpu))
    base = load_azure(trace)
    reqs = tiled(base, args.requests)
    cap = capacity_rps(cm, reqs)
    rate = len(reqs) / (reqs[-1].arrival - reqs[0].arrival)
    factor = rate / (args.load * cap)
    reqs = [Request(r.id, r.arrival * factor, r.prompt_tokens, r.output_tokens) for r in reqs]

    gc.collect()
    gc.freeze()  # the workload lives for the whole run: keep it out of every GC pass
    calib = min(timeit.repeat("for i in range(10): pass", number=200_000, repeat=5)) / 200_000
    eng = Engine(cm, EngineConfig())
    prof = cProfile.Profile() if args.profile else None
    t0 = time.process_time()
    if prof:
        prof.enable()
    results = eng.run(reqs)
    if prof:
        prof.disable()
    cpu = time.process_time() - t0
    maxrss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    # Python-heap peak of a second, identical run (tracemalloc slows it, so it is not timed).
    peak = 0
    if not args.skip_memory:
        gc.collect()
        tracemalloc.start()
        Engine(cm, EngineConfig()).run(reqs)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()

    st = eng.finalize_stats()
    done = [r for r in results if r.finish >= 0]
    span = max(r.finish for r in done) - reqs[0].arrival
    ttft = sorted(r.ttft for r in done)
    tpot = sorted(r.tpot for r in done if r.output_tokens > 1)
    print(f"settings: {args.model} on {args.gpu}, {len(reqs)} requests (azure conv tiled), "
          f"block 16, max_num_seqs 256, max_num_batched_tokens 8192, fast mode; engine "
          f"{'compiled by mypyc' if COMPILED else 'pure Python (not compiled)'}")
    print(f"capacity (saturated burst): {cap:.2f} req/s; offered {len(reqs) / span:.2f} req/s "
          f"(target load {args.load:.0%}); busy {st.busy_s / span:.1%} of simulated time")
    print(f"simulated {span:.0f} s: {st.iterations} iterations in {st.events} events; "
          f"{len(done)} finished, {st.rejected} rejected, {st.preempt_recompute} preemptions")
    p99 = ttft[int(len(ttft) * 0.99)]
    print(f"TTFT p50 {ttft[len(ttft) // 2] * 1e3:.1f} ms p99 {p99 * 1e3:.1f} ms;"
          f" TPOT p50 {tpot[len(tpot) // 2] * 1e3:.2f} ms")
    print(f"CPU time: {cpu:.2f} s = {cpu / len(reqs) * 1e6:.1f} us per request (target <= 20); "
          f"calibration: a 10-step empty loop takes {calib * 1e9:.0f} ns")
    traced = f"tracemalloc peak {peak / 2**20:.0f} MB" if peak else "tracemalloc skipped"
    print(f"peak memory: maxrss {maxrss_mb:.0f} MB, {traced} (target <= 500)")
    if prof:
        pstats.Stats(prof).sort_stats("tottime").print_stats(15)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
