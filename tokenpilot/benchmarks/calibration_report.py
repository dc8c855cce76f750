"""Print the cost model's accuracy against ../shared/fidelity: MAPE per group, static rows in full.

Usage: python benchmarks/calibration_report.py
(the full per-row table: tokenpilot calibrate --report)
"""

from __future__ import annotations

import sys

from tokenpilot.fidelity import fidelity_report

TARGETS = {"splitwise prefill": 15.0, "splitwise decode": 15.0, "published static": 20.0}


def main() -> None:
    try:
        rep = fidelity_report()
    except FileNotFoundError as e:
        sys.exit(str(e))
    print("MAPE per group (target where the issue sets one):")
    for group, mape in rep.mape.items():
        target = TARGETS.get(group)
        mark = "" if target is None else f"  target <= {target:.0f}%: " + (
            "met" if mape <= target else "MISSED")
        print(f"  {group:<24} {mape:6.1f}%  n={rep.counts[group]}{mark}")
    print("\npublished rows, one by one:")
    for r in rep.rows:
        if not r.group.startswith("published"):
            continue
        if r.predicted is None:
            print(f"  {r.id:<28} measured {r.measured:9.2f} {r.unit:<6} skipped: {r.note}")
        else:
            print(f"  {r.id:<28} measured {r.measured:9.2f} {r.unit:<6} predicted "
                  f"{r.predicted:9.2f}  error {r.error_pct:+6.1f}%")


if __name__ == "__main__":
    main()
