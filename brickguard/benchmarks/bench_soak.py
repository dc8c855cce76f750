"""Benchmark: brickguard soak on the I2C example, on the BG1xx fixture cases, and its throughput.

Run from the repository root:

    .venv/bin/python brickguard/benchmarks/bench_soak.py [--part i2c,fixtures,throughput]

- i2c: `brickguard soak` on examples/i2c_slave buggy and fixed (build included): the buggy one
  must have a witness, the fixed one a complete exploration with no failure; seconds for each.
- fixtures: `check --confirm` on every BG1xx fixture case: per labelled race (an `expect:` mark)
  confirmed / refuted / not explored (why), and any soak failure on a line with no mark. A race
  also marked `soak: no race here: WHY` is one the C has and the compiled code cannot break
  (one `ldrd`; a handler that writes the value already there): it must not be confirmed. A
  case gcc does not compile (a BG000 case, e.g. an undeclared BSP call) is not a program: its
  races are counted apart, as not soaked, never as misses. Passes when every other labelled
  race is confirmed.
- clean (``--cases a,b``: only the cases whose path contains one of them): every function of
  every BG1xx case as a scenario, with the handlers its race findings name or, in a case with
  none (a clean look-alike file), every interrupt context of the static model (but functions
  that take parameters: called with none they run on garbage; main or the vector that calls
  them runs them), from
  the recorded state and again from the seeded one (`[soak] seed = "wrap"`, where a handler
  counts something), the
  whole run explored: failing runs landing outside the labelled races' lines (the clean
  look-alikes) are counted and listed.
- throughput: injected runs per second on a generated scenario of about 200 instructions, with
  the handler injected at every boundary (window covers the whole call); the best of 5
  explorations, wall and CPU time. A calibration figure (seconds for 1M empty Python loop steps)
  is printed beside: ~0.02 s on an idle core; a shared, loaded machine shows more.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

HERE = Path(__file__).resolve().parent
NO_RACE = re.compile(r"soak: no race here(?: on [\w-]+)?: ([^*]*)")
ROOT = HERE.parent
THROUGHPUT_C = """\
#include <stdint.h>
volatile uint32_t shared[8];
volatile uint32_t tick;
void SysTick_Handler(void) { tick++; shared[1] += 1u; shared[5] ^= tick; }
void scenario(void)
{
    for (uint32_t i = 0; i < 24u; i++) {
        shared[i & 7u] = shared[i & 7u] + i;
    }
}
"""


def calibration() -> float:
    """Seconds for 1M steps of an empty Python loop: the machine's speed just now."""
    return min(timeit.repeat("for i in range(10): pass", number=100000, repeat=5))


def i2c() -> bool:
    example = ROOT / "examples" / "i2c_slave"
    ok = True
    for name, want in (("buggy", 1), ("fixed", 0)):
        argv = [sys.executable, "-m", "brickguard.cli", "soak", str(example / name),
                "--config", str(example / "brickguard.toml"), "-q"]
        started = time.perf_counter()
        proc = subprocess.run(argv, capture_output=True, text=True)
        seconds = time.perf_counter() - started
        summary = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else ""
        good = proc.returncode == want and seconds < 10
        ok &= good
        print(f"i2c {name}: exit {proc.returncode} (want {want}), {seconds:.2f} s including the "
              f"build: {'OK' if good else 'MISSED'}; {summary}")
        if name == "buggy":
            first = next((line for line in proc.stdout.splitlines() if "taken before" in line), "")
            print(f"  witness: {first.strip()}")
    return ok


def throughput() -> bool:
    from brickguard.config import config_from_dict
    from brickguard.soak.build import build
    from brickguard.soak.explore import Explorer

    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "scenario.c"
        src.write_text(THROUGHPUT_C, encoding="utf-8")
        config = config_from_dict({"soak": {"scenario": "scenario", "window": 1000,
                                            "interrupts": [{"handler": "SysTick_Handler"}]}},
                                  root=Path(tmp))
        assert config.soak is not None
        image = build([src], config, config.soak)
        best_wall = best_cpu = 0.0
        runs = instructions = 0
        for _ in range(5):
            result = Explorer(image, config.soak).explore()
            (r,) = result.handlers
            runs, instructions = r.explored, result.baseline.total
            best_wall = max(best_wall, r.explored / r.seconds)
            best_cpu = max(best_cpu, r.explored / max(r.cpu_seconds, 1e-9))
    ok = best_wall >= 2000
    print(f"throughput: {instructions}-instruction scenario, {runs} injected runs per exploration; "
          f"best of 5: {best_wall:.0f} runs/s wall, {best_cpu:.0f} runs/s by this process's CPU "
          f"time (snapshots and runs, baseline and build not counted): "
          f"{'OK' if ok else 'MISSED'} (target 2,000, aim 10,000)")
    return ok


def fixtures() -> bool:
    from bench_fixture_recall import cases, config, expected

    from brickguard.cli_check import run_analysis
    from brickguard.soak.confirm import RACE_RULES, confirm

    root = ROOT / "tests" / "cases"
    totals = {"labelled": 0, "confirmed": 0, "refuted": 0, "not explored": 0}
    not_programs: list[str] = []  # cases gcc rejects (a BG000 case: the C is not a program)
    reasons: dict[str, int] = {}
    unlabelled: list[str] = []
    no_race = {"marked": 0, "confirmed": 0}
    started = time.perf_counter()
    for case in cases(root):
        cfg = config(case, root)
        want = expected(case)
        marked = no_race_here(case)
        report = run_analysis([case], cfg)
        active = [item.finding for item in report.active]
        for f, verdict in confirm(active, [case], cfg, quiet=True,
                                  interrupts=report.interrupts):
            key = (Path(f.location.file).name, f.location.line, f.rule)
            where = f"{case.relative_to(root)}:{f.location.line} {f.rule}"
            if key not in want:
                unlabelled.append(f"{where}: {verdict.status}")
                continue
            if key[:2] in marked:  # the static finding is right for C, no race on this build
                no_race["marked"] += 1
                no_race["confirmed"] += verdict.status == "confirmed"
                print(f"  {where}: {verdict.status}, marked 'soak: no race here' "
                      f"({marked[key[:2]]}): {verdict.reason[:120]}")
                continue
            if verdict.status == "not explored" and " does not compile for " in verdict.reason:
                not_programs.append(f"{where}: {verdict.reason.split(': ', 1)[-1][:100]}")
                continue
            totals["labelled"] += 1
            totals[verdict.status] += 1
            if verdict.status == "not explored":
                reason = verdict.reason.split(": ", 1)[-1][:110]
                reasons[reason] = reasons.get(reason, 0) + 1
            if verdict.status != "confirmed":
                print(f"  {where}: {verdict.status} ({verdict.reason[:140]})")
    labelled = sum(1 for case in cases(root) for _, _, rule in expected(case)
                   if rule in RACE_RULES)
    print(f"fixtures: {labelled} labelled races (BG101-BG103 expect: marks), "
          f"{no_race['marked']} of them marked 'soak: no race here' (the compiled code cannot "
          f"break: {no_race['confirmed']} of those confirmed all the same), "
          f"{len(not_programs)} in cases gcc does not compile (not a program: nothing to "
          f"soak); of the {totals['labelled']} others, found by check and soaked: "
          f"{totals['confirmed']} confirmed, {totals['refuted']} refuted, "
          f"{totals['not explored']} not explored; "
          f"{time.perf_counter() - started:.1f} s for all cases")
    for line in not_programs:
        print(f"  not a program (does not compile): {line}")
    for reason, n in sorted(reasons.items(), key=lambda kv: -kv[1]):
        print(f"  not explored x{n}: {reason}")
    for line in unlabelled:
        print(f"  race finding on an unmarked line: {line}")
    return (totals["confirmed"] == totals["labelled"] and no_race["confirmed"] == 0)


def no_race_here(case: Path) -> dict[tuple[str, int], str]:
    """(file, line) -> why, for the labelled races marked ``soak: no race here: WHY``: true
    races of the C (the static finding stands) that the compiled code cannot break."""
    files = [case] if case.is_file() else sorted(case.rglob("*.[ch]"))
    return {(f.name, n): m.group(1).strip() for f in files
            for n, line in enumerate(f.read_text().splitlines(), start=1)
            if (m := NO_RACE.search(line))}


ONLY: list[str] = []  # --cases


def clean_twins() -> bool:
    """Every function of every BG1xx case as a scenario, unfocused, with the case's handlers
    (those its race findings name; in a case with none, the static model's interrupt contexts):
    failing runs that land outside every labelled race's lines
    (from its first access to its marked line) are failures on clean look-alikes."""
    from dataclasses import replace

    from bench_fixture_recall import cases, config, expected

    from brickguard.cli_check import run_analysis
    from brickguard.errors import BrickguardError
    from brickguard.soak.build import build
    from brickguard.soak.confirm import RACE_RULES, _first_line, _spec, injected, lines_around
    from brickguard.soak.explore import Explorer
    from brickguard.soak.settings import SoakTable

    root = ROOT / "tests" / "cases"
    ran = skipped = stray = with_args = with_seed = 0
    started = time.perf_counter()
    for case in cases(root):
        if ONLY and not any(o in str(case.relative_to(root)) for o in ONLY):
            continue
        cfg = config(case, root)
        want = expected(case)
        report = run_analysis([case], cfg)
        races = [i.finding for i in report.active if i.finding.rule in RACE_RULES]
        if not races and not report.interrupts:
            continue
        spans = [(Path(f.location.file).name, _first_line(f), f.location.line) for f in races
                 if (Path(f.location.file).name, f.location.line, f.rule) in want]
        try:
            probe = build([case], cfg, SoakTable(scenario="main", interrupts=[]))
        except BrickguardError as exc:
            skipped += 1
            print(f"  {case.relative_to(root)}: not run ({str(exc)[:100]})")
            continue
        # The handlers the race findings name; in a case with none (a clean look-alike file),
        # every interrupt context of the static model, entered through what the core enters.
        handlers = sorted({h for f in races for h in injected(probe, f)} if races else
                          {r for name in report.interrupts if name in probe.symbols
                           for r in ([r for r in probe.roots(name) if r != "main"] or [name])})
        if not handlers:
            continue
        files = {p.name for p in ([case] if case.is_file() else case.rglob("*.c"))}
        functions = sorted({probe.function_at(a) for a, file, _ in probe.lines
                            if Path(file).name in files} - set(handlers))
        for fn in functions:
            if fn.startswith(("0x", "__bg_")):
                continue
            if fn in probe.takes_args:  # called with none it runs on garbage: its callers
                with_args += 1          # (main, a vector) run it as the program calls it
                continue
            table = SoakTable(scenario=fn, bounded=True, budget=20000, max_seconds=20,
                              interrupts=[_spec(probe, h, report.interrupts.get(h))
                                          for h in handlers])
            try:
                image = build([case], cfg, table)
                results = [("", Explorer(image, table, cfg).explore())]
                # Again from the seeded state (counters one step before they wrap), when
                # the handlers count anything: a clean twin stays clean there too.
                seeded = Explorer(image, replace(table, seed="wrap"), cfg)
                if seeded.seeded:
                    results.append((" (seeded)", seeded.explore()))
                    with_seed += 1
            except BrickguardError as exc:
                skipped += 1
                print(f"  {case.relative_to(root)} {fn}(): not run ({str(exc)[:100]})")
                continue
            ran += 1
            for state, result in results:
                for r in result.handlers:
                    for failure in r.failures:
                        where = image.line_at(failure.pc)
                        name, line = (Path(where[0]).name, where[1]) if where else ("?", 0)
                        around = {(Path(f).name, n) for f, n in lines_around(r, failure, image)}
                        if not any(file == n and lo <= ln <= hi for n, lo, hi in spans
                                   for file, ln in around):
                            stray += 1
                            print(f"  {case.relative_to(root)} {fn}(){state}: "
                                  f"{r.spec.handler} at {name}:{line}: {failure.kind} "
                                  "(no labelled race there)")
    print(f"clean twins: {ran} functions soaked unfocused ({skipped} could not run; "
          f"{with_args} that take parameters left to their callers; {with_seed} soaked again "
          "from the seeded state, where a handler counts something), "
          f"{stray} failing runs landing away from every labelled race (its lines, or between "
          f"the conflicting accesses around them); "
          f"{time.perf_counter() - started:.1f} s")
    return stray == 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", default="i2c,fixtures,clean,throughput")
    ap.add_argument("--cases", default="", help="clean part: only the cases whose path under "
                    "tests/cases contains one of these comma-separated strings")
    args = ap.parse_args()
    ONLY[:] = [c for c in args.cases.split(",") if c]
    sys.path.insert(0, str(HERE))
    print(f"calibration: {calibration():.4f} s for 1M loop steps (min of 5)")
    ok = True
    parts = {"i2c": i2c, "fixtures": fixtures, "clean": clean_twins, "throughput": throughput}
    for part in args.part.split(","):
        ok &= parts[part]()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
