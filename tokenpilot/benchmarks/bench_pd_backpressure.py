"""Disaggregation backpressure: TTFT when the decode side is overloaded, with and without it.

One H100 prefill instance and one H100 decode instance (``max_num_seqs`` 16: ~14 req/s; the
prefill side does ~48) serve llama-3.1-8b, ~1000-token prompts and ~200-token answers, at 8 req/s
(the decode side keeps up) and 16 req/s (it cannot). With backpressure (``cluster.pd``) the prefill
instance holds each prompt's KV until the decode side admits it, and the user's first token
comes with the decode side's stream: the decode queue shows up as TTFT. Without it (the older
model) TTFT stays at the prefill side's and the decode queue lands in TPOT instead. A second
case puts both on L4s, whose KV pool (~1900 blocks) the held prompts fill: new prompts then
queue on the prefill side too.

Usage: python benchmarks/bench_pd_backpressure.py
"""

from __future__ import annotations

from tokenpilot.cluster import compute_metrics, fleet_from_dict
from tokenpilot.cluster.pd import capacity, simulate_pd
from tokenpilot.policy.routers import make_router
from tokenpilot.workload import poisson, scale_to_rate


def fleet(gpu: str, decode_seqs: int):
    return fleet_from_dict({"name": f"{gpu}-pd", "instances": [
        {"gpu": gpu, "model": "llama-3.1-8b", "role": "prefill", "name": "prefill"},
        {"gpu": gpu, "model": "llama-3.1-8b", "role": "decode", "max_num_seqs": decode_seqs,
         "name": "decode"}]})


def main() -> None:
    cases = [("h100-sxm", 16, 600, (8.0, 16.0)), ("l4", 8, 120, (2.0,))]
    print(f"{'fleet':<22} {'req/s':>6} {'cap':>5} {'backpressure':>12} {'TTFT p50':>9} "
          f"{'TTFT p90':>9} {'TPOT p50':>9} {'prefill wait p90':>16} {'held KV max':>12}")
    for gpu, seqs, n, rates in cases:
        f = fleet(gpu, seqs)
        base = poisson(1.0, n, prompt=1000, output=200, prompt_cv=0.3, output_cv=0.3, seed=3)
        for rate in rates:
            reqs = scale_to_rate(base, rate)
            for bp in (False, True):
                out = simulate_pd(f, reqs, make_router("least-tokens"),
                                  make_router("least-tokens"), backpressure=bp)
                m = compute_metrics(out.sim)
                waits = sorted(r.first_scheduled - r.arrival
                               for r in out.prefill_results.values())
                print(f"{gpu + f' P1 D1 ({seqs} seqs)':<22} {rate:6.1f} "
                      f"{capacity(f, reqs):5.1f} {'on' if bp else 'off':>12} "
                      f"{m.ttft['p50'] * 1e3:7.0f}ms {m.ttft['p90'] * 1e3:7.0f}ms "
                      f"{m.tpot['p50'] * 1e3:7.1f}ms {waits[int(0.9 * len(waits))] * 1e3:14.0f}ms "
                      f"{out.max_held_blocks[0]:>5}/{out.sim.kv_blocks[0]:<6}")


if __name__ == "__main__":
    main()
