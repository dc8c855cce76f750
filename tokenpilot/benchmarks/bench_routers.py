"""Microseconds per routing decision over 64 instances, and the time to load the traces.

Run: ``python benchmarks/bench_routers.py [--picks N]``. Prints measured figures only; the target
is a few microseconds per pick so that a 1,000,000-request simulation spends seconds routing.
"""

from __future__ import annotations

import argparse
import random
import time

from tokenpilot.policy import InstanceView, compose, get_router
from tokenpilot.policy.routers import ROUTERS
from tokenpilot.workload import TRACES, Request, load_workload, poisson
from tokenpilot.workload._shared import traces_dir

INSTANCES = 64


def views(rng: random.Random) -> list[InstanceView]:
    out = []
    for i in range(INSTANCES):
        cached = frozenset(rng.sample(range(2000), 200)) if i % 4 == 0 else frozenset()
        out.append(InstanceView(
            index=i, name=f"i{i}", num_running=rng.randrange(64), num_waiting=rng.randrange(8),
            queued_prefill_tokens=rng.randrange(20_000), outstanding_tokens=rng.randrange(200_000),
            kv_blocks_used=rng.randrange(10_000), kv_blocks_total=10_000,
            prefill_tokens_per_s=rng.choice((8_000.0, 30_000.0)),
            decode_tokens_per_s=rng.choice((25.0, 60.0)), predicted_drain_s=rng.random() * 30,
            cached_prefixes=cached,
        ))
    return out


def requests(rng: random.Random, count: int) -> list[Request]:
    # Mooncake-like: ~24 prefix blocks, the first few shared across requests.
    out = []
    for k in range(count):
        head = tuple(range(rng.randrange(4) * 8, rng.randrange(4) * 8 + 8))
        blocks = head + tuple(range(10_000 + 16 * k, 10_000 + 16 * k + 16))
        out.append(Request(k, 0.0, 12_000, 340, prefix_hashes=blocks))
    return out


def bench(router, vs, reqs) -> float:
    pick, routed = router.pick, router.on_routed
    t0 = time.perf_counter()
    for r in reqs:
        routed(r, pick(r, vs))
    return (time.perf_counter() - t0) / len(reqs) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--picks", type=int, default=20_000)
    args = parser.parse_args()
    rng = random.Random(0)
    vs, reqs = views(rng), requests(rng, args.picks)
    print(f"routing over {INSTANCES} instances, {args.picks} picks each (pick + on_routed)")
    routers = {name: get_router(name) for name in ROUTERS}
    routers["composed(queue,prefix,kv)"] = compose({
        "filters": ["healthy", {"max_kv_usage": 0.95}],
        "scorers": [{"name": "queue", "weight": 1}, {"name": "prefix", "weight": 2},
                    {"name": "kv", "weight": 1}],
    })
    for name, router in routers.items():
        print(f"  {name:28s} {bench(router, vs, reqs):8.2f} us/pick")
    print("loading workloads")
    specs = list(TRACES) if traces_dir() is not None else []
    for spec in specs:
        t0 = time.perf_counter()
        n = len(load_workload(spec))
        print(f"  {spec:28s} {n:9d} requests {time.perf_counter() - t0:7.3f} s")
    t0 = time.perf_counter()
    n = len(poisson(100.0, n=1_000_000))
    print(f"  {'poisson 1,000,000':28s} {n:9d} requests {time.perf_counter() - t0:7.3f} s")


if __name__ == "__main__":
    main()
