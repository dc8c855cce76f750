"""Print the cost model's accuracy against ../shared/fidelity: MAPE per group, the held-out
Splitwise prediction (fit on TP2+TP4 with `calibrate --fit-phases`, predict TP8, per phase), the
last recorded llama.cpp sim-to-real run, and the static published rows in full.

Usage: python benchmarks/calibration_report.py
(the full per-row table: tokenpilot calibrate --report)
"""

from __future__ import annotations

import sys

from tokenpilot.fidelity import TARGETS, fidelity_report


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
    print("\nheld out and sim-to-real (target where the issue sets one):")
    for f in rep.figures:
        if "held out" not in f.name and not f.name.startswith("llama.cpp"):
            continue
        value = "    n/a" if f.error_pct is None else f"{f.error_pct:6.1f}%"
        mark = "" if f.target_pct is None or f.error_pct is None else (
            f"  target <= {f.target_pct:.0f}%: " + ("met" if abs(f.error_pct) <= f.target_pct
                                                    else "MISSED"))
        print(f"  {f.name:<52} {value}  n={f.n}{mark}")
        if f.note:
            print(f"      {f.note}")
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
