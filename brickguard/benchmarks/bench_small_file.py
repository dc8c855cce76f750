"""Benchmark: `brickguard check` on one 15-line file, end to end in a fresh process (target < 1 s).

Runs the command 5 times and prints the wall time (min and median), the CPU seconds of the process
(load-independent) and where the time goes: the imports (``python -X importtime``, the largest
top-level ones) against the analysis itself. The calibration figure (an empty Python loop) is
printed first; on a shared machine the wall time is mostly waiting for a CPU, so read the CPU
column beside it.

Run: .venv/bin/python brickguard/benchmarks/bench_small_file.py
"""

from __future__ import annotations

import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

SMALL = """\
#include <stdint.h>
volatile uint32_t ticks;
static uint32_t last;

void SysTick_Handler(void)
{
    ticks++;
}

int main(void)
{
    last = ticks;
    ticks = 0;
    return (int)last;
}
"""
TARGET_S = 1.0
RUNS = 5


def calibration() -> float:
    """Seconds for 1M steps of an empty Python loop: the machine's speed just now."""
    return min(timeit.repeat("for i in range(10): pass", number=100000, repeat=5))


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main() -> int:
    print(f"calibration: {calibration():.4f}s for 1M loop steps (min of 5); {os.cpu_count()} "
          f"CPUs, load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="bg-small-") as tmp:
        src = Path(tmp) / "small.c"
        src.write_text(SMALL)
        assert SMALL.count("\n") == 15
        cmd = [sys.executable, "-m", "brickguard.cli", "check", str(src)]
        walls, cpus = [], []
        for _ in range(RUNS):
            t0, c0 = time.perf_counter(), _cpu()
            proc = subprocess.run(cmd, capture_output=True, text=True)
            walls.append(time.perf_counter() - t0)
            cpus.append(_cpu() - c0)
        if proc.returncode not in (0, 1):
            sys.exit(f"check failed: {proc.stderr.strip()}")
        imports = subprocess.run([sys.executable, "-X", "importtime", *cmd[1:]],
                                 capture_output=True, text=True).stderr
    top: list[tuple[int, str]] = []
    for line in imports.splitlines():
        m = re.match(r"import time:\s+\d+ \|\s+(\d+) \|( *)(\S+)", line)
        if m and len(m.group(2)) == 1:  # top-level imports only
            top.append((int(m.group(1)), m.group(3)))
    total_us = sum(us for us, _ in top)
    print(f"wall: min {min(walls):.2f}s, median {statistics.median(walls):.2f}s; CPU: min "
          f"{min(cpus):.2f}s, median {statistics.median(cpus):.2f}s (target < {TARGET_S:.0f}s)")
    print(f"imports (one run, wall): {total_us / 1e6:.2f}s in all; largest: " + ", ".join(
        f"{name} {us / 1e6:.2f}s" for us, name in sorted(top, reverse=True)[:5]))
    return 0 if min(walls) < TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
