"""Prefix affinity on the Mooncake conversation trace over 8 identical instances.

Fleet: 8x H100-SXM serving llama-3.1-8b. Workload: the first ``--n`` requests (default 3000)
of the Mooncake conversation trace (mean prompt ~12k tokens), time-scaled to ``--load`` of the
fleet's estimated capacity. The affinity upper bound is the KV hit rate of one imaginary
instance holding all eight instances' KV memory, computed by replaying the requests' prefix
blocks in arrival order through an LRU of that many 512-token blocks. It evicts as the engines
do (a prefix's tail before its head) and counts hits in the engines' 16-token blocks, at most
all but the prompt's last token; it ignores that running requests pin their decode blocks and
that a prefix is a hit only once computed, so it is a slightly generous bound. Target:
prefix-affinity reaches >= 90% of it with max/mean token load <= 1.3.

    python benchmarks/bench_prefix_affinity.py [--n 3000] [--load 0.6]
"""

from __future__ import annotations

import argparse
import sys
from collections import OrderedDict

from tokenpilot.cluster import compute_metrics, fleet_capacity, load_fleet, simulate
from tokenpilot.policy.routers import make_router
from tokenpilot.report.tables import compare_table
from tokenpilot.workload import WorkloadError, load_workload, scale_to_rate, truncate

ROUTERS = ("round-robin", "least-tokens", "prefix-affinity")


def lru_hit_rate(requests, capacity_blocks: int) -> float:
    """Prompt tokens served from an LRU of prefix blocks / prompt tokens."""
    lru: OrderedDict[int, None] = OrderedDict()
    hit = total = 0
    for r in requests:
        total += r.prompt_tokens
        depth = 0
        for h in r.prefix_hashes:
            if h in lru:
                depth += 1
            else:
                break
        for h in reversed(r.prefix_hashes):  # the head touched last: evicted last
            lru[h] = None
            lru.move_to_end(h)
        # The engine matches whole 16-token blocks and always computes the last prompt token.
        tokens = min(depth * r.prefix_block_tokens, r.prompt_tokens)
        hit += min(tokens // 16 * 16, (r.prompt_tokens - 1) // 16 * 16)
        while len(lru) > capacity_blocks:
            lru.popitem(last=False)
    return hit / total if total else 0.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=3000, help="first N requests of the trace")
    ap.add_argument("--load", type=float, default=0.6)
    args = ap.parse_args()
    try:
        reqs = truncate(load_workload("mooncake"), n=args.n)
    except WorkloadError as exc:
        print(f"skipped: {exc}")
        return 0
    fleet = load_fleet("h100x8")
    cap = fleet_capacity(fleet, reqs)
    reqs = scale_to_rate(reqs, args.load * cap)
    cm = fleet.instances[0].cost_model()
    bound = lru_hit_rate(reqs, fleet.size * cm.kv_capacity_tokens // 512)
    print(f"{fleet.describe()}; Mooncake conversation, first {len(reqs)} requests at "
          f"{args.load * cap:.2f} req/s ({args.load:.0%} of ~{cap:.2f} req/s)")
    ms = []
    for name in ROUTERS:
        router = make_router(name)
        sim = simulate(fleet, reqs, router)
        if hasattr(router, "guard_trips"):
            print(f"  {name}: load guard tripped {router.guard_trips} times", file=sys.stderr)
        ms.append(compute_metrics(sim, slo_ttft=5.0, slo_tpot=0.1))
        print(f"  {name}: simulated in {sim.wall_s:.1f}s", file=sys.stderr, flush=True)
    print(compare_table(ms))
    print(f"\naffinity upper bound (one instance with 8x the KV, LRU replay): {bound:.1%}")
    for m in ms:
        share = m.kv_hit_rate / bound if bound else 0.0
        print(f"{m.router:>16}: KV hit {m.kv_hit_rate:.1%} = {share:.0%} of the bound; "
              f"max/mean token load {m.imbalance_tokens:.2f}")
    pa = ms[-1]
    ok = pa.kv_hit_rate >= 0.9 * bound and pa.imbalance_tokens <= 1.3
    print(f"target (>= 90% of bound, load <= 1.3): {'met' if ok else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
