"""Benchmark: `brickguard init` then `brickguard check --misra` on every STM32F4-Discovery example.

For each example project in ``../shared/firmware/stm32f4/demos`` (a folder with ``Src/main.c``)
it runs, as a user would, in fresh processes:

    brickguard init PROJECT --output TMP/brickguard.toml        (the shared tree stays read-only)
    brickguard check PROJECT --config TMP/brickguard.toml --misra --format json

and prints per project: the init time, the check time, how many BG000 findings name a missing
*system* header (the C library: must be 0), how many MISRA findings there are (or the BG002 note
that says why MISRA did not run), and the BG002 notes. Target: under 30 s per project for init
plus check, with MISRA results present. The SDK index cache is a fresh temporary folder for the
first project (the cold cost is in its row) and shared by the rest, as on a user's machine.

Run: .venv/bin/python brickguard/benchmarks/bench_init_check.py [--only NAME] [--jobs N]
The calibration figure (an empty Python loop) is printed first: compare times across machines
by it, and treat rows as noisy when the machine is shared: the "cpu s" column (CPU seconds of
the check and its children: parser workers, cppcheck) does not depend on the machine's load.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIRMWARE = HERE.parents[1].parent / "shared" / "firmware"
DEMOS = FIRMWARE / "stm32f4/demos/Projects/STM32F4-Discovery/Examples"
BRICKGUARD = [sys.executable, "-m", "brickguard.cli"]
TARGET_S = 30.0
SYSTEM_HEADER = re.compile(
    r"'(?:assert|ctype|errno|inttypes|limits|locale|math|setjmp|signal|stdarg|stdbool|stddef|"
    r"stdint|stdio|stdlib|string|strings|time|wchar|sys/\w+)\.h' file not found")


def calibration() -> float:
    """Seconds for 1M steps of an empty Python loop: the machine's speed just now."""
    return min(timeit.repeat("for i in range(10): pass", number=100000, repeat=5))


def projects() -> list[Path]:
    return sorted(p.parent.parent for p in DEMOS.rglob("Src/main.c"))


def _cpu() -> float:
    """CPU seconds used by finished child processes (and theirs): load-independent cost."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_one(project: Path, tmp: Path, env: dict[str, str], jobs: int | None) -> dict:
    config = tmp / "brickguard.toml"
    t0 = time.perf_counter()
    init = subprocess.run([*BRICKGUARD, "init", str(project), "--output", str(config)],
                          capture_output=True, text=True, env=env)
    t_init = time.perf_counter() - t0
    row = {"name": project.relative_to(DEMOS).as_posix(), "init_s": t_init,
           "init_rc": init.returncode}
    if init.returncode != 0:
        row["error"] = init.stderr.strip().splitlines()[-1:] or ["init failed"]
        return row
    cmd = [*BRICKGUARD, "check", str(project), "--config", str(config), "--misra",
           "--format", "json", "--no-fail-on-skip"]
    if jobs is not None:
        cmd += ["--jobs", str(jobs)]
    t0, c0 = time.perf_counter(), _cpu()
    check = subprocess.run(cmd, capture_output=True, text=True, env=env)
    row["check_s"] = time.perf_counter() - t0
    row["check_cpu"] = _cpu() - c0
    row["check_rc"] = check.returncode
    try:
        findings = json.loads(check.stdout)["findings"]
    except (ValueError, KeyError):
        row["error"] = check.stderr.strip().splitlines()[-1:] or ["no JSON report"]
        return row
    row["system_bg000"] = sum(1 for f in findings
                              if f["rule"] == "BG000" and SYSTEM_HEADER.search(f["message"]))
    row["bg000"] = sum(1 for f in findings if f["rule"] == "BG000")
    row["misra"] = sum(1 for f in findings if f["rule"].startswith("MISRA-C2012-"))
    notes = [f["message"] for f in findings if f["rule"] == "BG002"]
    row["misra_notes"] = [n for n in notes if "MISRA" in n]
    row["bg002"] = len(notes)
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="run only projects whose name contains this")
    ap.add_argument("--jobs", type=int, default=None, help="pass --jobs to check")
    args = ap.parse_args()
    if not DEMOS.is_dir():
        sys.exit(f"{DEMOS}: the shared firmware is absent (read ../shared/firmware/README.md)")
    print(f"calibration: {calibration():.4f}s for 1M loop steps (min of 5); "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    chosen = [p for p in projects() if not args.only or args.only in str(p)]
    print(f"{'project':<46} {'init s':>6} {'check s':>7} {'cpu s':>5} {'sysBG000':>8} "
          f"{'BG000':>5} {'MISRA':>5} {'BG002':>5}  verdict")
    worst, failures, cpu = 0.0, 0, []
    with tempfile.TemporaryDirectory(prefix="bg-bench-cache-") as cache:
        env = {**os.environ, "XDG_CACHE_HOME": cache}
        env.pop("BRICKGUARD_CACHE_DIR", None)
        for project in chosen:
            with tempfile.TemporaryDirectory(prefix="bg-bench-") as tmp:
                row = run_one(project, Path(tmp), env, args.jobs)
            total = row.get("init_s", 0) + row.get("check_s", 0)
            worst = max(worst, total)
            cpu.append(row.get("check_cpu", 0.0))
            ok = ("error" not in row and row["system_bg000"] == 0
                  and (row["misra"] > 0 or row["misra_notes"]) and total < TARGET_S)
            failures += not ok
            if "error" in row:
                print(f"{row['name']:<46} {row['init_s']:6.1f} {'-':>7}  FAILED: {row['error'][0]}")
                continue
            why = "" if row["misra"] else f" MISRA: {row['misra_notes'][0][:80]}"
            print(f"{row['name']:<46} {row['init_s']:6.1f} {row['check_s']:7.1f} "
                  f"{row['check_cpu']:5.1f} {row['system_bg000']:8d} {row['bg000']:5d} "
                  f"{row['misra']:5d} "
                  f"{row['bg002']:5d}  {'ok' if ok else 'MISSED'}{why}")
    print(f"{len(chosen)} projects; slowest init+check {worst:.1f}s wall (target < "
          f"{TARGET_S:.0f}s); check CPU max {max(cpu, default=0):.1f}s, median "
          f"{sorted(cpu)[len(cpu) // 2] if cpu else 0:.1f}s; {failures} missed the targets; "
          f"load average now {os.getloadavg()[0]:.1f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
