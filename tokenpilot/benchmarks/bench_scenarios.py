"""Run every named scenario at full size and print its table and target checks.

    python benchmarks/bench_scenarios.py [--quick] [NAME ...]
"""

from __future__ import annotations

import argparse
import time

from tokenpilot.scenarios import SCENARIOS, run


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("names", nargs="*", default=list(SCENARIOS))
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    missed = []
    for name in args.names:
        t0 = time.perf_counter()
        res = run(name, args.quick)
        print(res.table())
        print(f"({time.perf_counter() - t0:.1f} s)\n")
        missed += [k for k, ok in res.checks.items() if not ok]
    print(f"targets missed: {len(missed)}")
    for k in missed:
        print(f"  MISS {k}")


if __name__ == "__main__":
    main()
