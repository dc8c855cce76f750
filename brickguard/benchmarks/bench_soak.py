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
- heldout (``--corpus DIR``, repeatable; default every ``heldout_races*/``): programs soak was
  not written against. Each program's ``check --confirm`` (the corpus' config, as
  bench_heldout.py writes it; one child process per program, stopped after
  ``--program-seconds``), each BG1xx finding matched to the corpus' labels as bench_heldout.py
  matches them, and its verdict counted per label group: confirmed on a labelled race,
  confirmed on a clean object or on nothing labelled (soak's false positive: listed, and the
  part fails), refuted on a race (listed), not explored by reason; a table per corpus and the
  time.
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
    by_class: dict[str, int] = {}  # failing runs away from the labels: location, joint, check...
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
                            cls = failure.oracle or failure.kind
                            by_class[cls] = by_class.get(cls, 0) + 1
                            stray += failure.gates(table.oracle)
                            print(f"  {case.relative_to(root)} {fn}(){state}: "
                                  f"{r.spec.handler} at {name}:{line}: {failure.kind}"
                                  f"{f' ({failure.oracle}: ' if failure.oracle else ''}"
                                  f"{', '.join(failure.locations)}"
                                  f"{')' if failure.oracle else ''} (no labelled race there)")
    print(f"clean twins: {ran} functions soaked unfocused ({skipped} could not run; "
          f"{with_args} that take parameters left to their callers; {with_seed} soaked again "
          "from the seeded state, where a handler counts something), "
          f"{sum(by_class.values())} failing runs landing away from every labelled race (its "
          f"lines, or between the conflicting accesses around them), by class: "
          f"{', '.join(f'{k} {v}' for k, v in sorted(by_class.items())) or 'none'}; "
          f"{stray} of them fail under the default oracle (joint ones are reported, not "
          f"failing); {time.perf_counter() - started:.1f} s")
    return stray == 0


HELDOUT: list[Path] = []  # --corpus
PROGRAM_SECONDS = [120.0]  # --program-seconds: the bound on one program's check --confirm


def _confirm_program(corpus: Path, name: str, profile: str) -> list[tuple[str, str, int, str,
                                                                           str]]:
    """check --confirm on one held-out program (in a child process): (rule, message, line,
    verdict, reason) per race finding; ("BG000", ...) when it is no program brickguard runs."""
    from bench_heldout import config_text

    from brickguard.cli_check import run_analysis
    from brickguard.config import load_config
    from brickguard.soak.confirm import confirm

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"brickguard-{profile}.toml"
        path.write_text(config_text(profile, corpus), encoding="utf-8")
        cfg = load_config(path)
        cfg.jobs = 1
        program = corpus / name
        report = run_analysis([program], cfg)
        active = [item.finding for item in report.active]
        broken = [f for f in active if f.rule == "BG000"]
        if broken:
            return [("BG000", broken[0].message, broken[0].location.line, "", "")]
        return [(f.rule, f.message, f.location.line, v.status, v.reason)
                for f, v in confirm(active, [program], cfg, quiet=True,
                                    interrupts=report.interrupts)]


def heldout() -> bool:
    """check --confirm on programs soak was not written against (the held-out corpora): each
    race finding's verdict against the corpus' labels, matched as bench_heldout.py matches."""
    import multiprocessing

    from bench_heldout import CORPORA, labels_of, load_labels

    ok = True
    ctx = multiprocessing.get_context("fork")
    for corpus in HELDOUT or [c for c in CORPORA if (c / "labels.toml").is_file()]:
        if not (corpus / "labels.toml").is_file():
            print(f"heldout: {corpus}: no labels.toml")
            return False
        table: dict[tuple[str, str], int] = {}
        reasons: dict[str, int] = {}
        notes: list[str] = []
        programs = timed_out = not_programs = 0
        started = time.perf_counter()
        for entry in load_labels(corpus):
            if ONLY and not any(o in entry["name"] for o in ONLY):
                continue
            programs += 1
            with ctx.Pool(1) as pool:
                job = pool.apply_async(_confirm_program, (corpus, entry["name"],
                                                          entry.get("profile", "cmsis")))
                try:
                    rows = job.get(timeout=PROGRAM_SECONDS[0])
                except multiprocessing.TimeoutError:
                    timed_out += 1
                    notes.append(f"  {entry['name']}: over {PROGRAM_SECONDS[0]:.0f} s, stopped "
                                 "(its findings not counted)")
                    continue
            if rows and rows[0][0] == "BG000":
                not_programs += 1
                continue
            labels = labels_of(entry)
            for rule, message, line, status, reason in rows:
                if not rule.startswith("BG1"):
                    continue
                hit = next((lb for lb in labels if lb.matches({"message": message,
                                                                "line": line})), None)
                group = hit.group if hit is not None else "unlabelled"
                key = (group, status)
                table[key] = table.get(key, 0) + 1
                where = f"{entry['name']}:{line} {rule}"
                if status == "not explored":
                    why = re.sub(r"\b0x[0-9a-f]+\b|\d+", "N", reason)[:110]
                    reasons[why] = reasons.get(why, 0) + 1
                elif status == "confirmed" and group != "race":
                    notes.append(f"  confirmed on {group} {hit.var if hit else ''}: {where}: "
                                 f"{reason[:160]}")
                elif status == "refuted" and group == "race":
                    notes.append(f"  refuted on race {hit.var if hit else ''}: {where}: "
                                 f"{reason[:160]}")
        seconds = time.perf_counter() - started
        print(f"heldout {corpus.name}: {programs} programs ({not_programs} not run: BG000; "
              f"{timed_out} over the {PROGRAM_SECONDS[0]:.0f} s bound), "
              f"{sum(table.values())} BG101-BG103 findings soaked, {seconds:.1f} s")
        statuses = ("confirmed", "refuted", "not explored")
        print(f"  {'finding on':<12}" + "".join(f"{s:>14}" for s in statuses))
        for group in ("race", "acceptable", "clean", "unlabelled"):
            if any(table.get((group, s)) for s in statuses):
                print(f"  {group:<12}" + "".join(f"{table.get((group, s), 0):>14}"
                                                 for s in statuses))
        for why, n in sorted(reasons.items(), key=lambda kv: -kv[1]):
            print(f"  not explored x{n}: {why}")
        for line in notes:
            print(line)
        ok &= not any(table.get((g, "confirmed")) for g in ("clean", "unlabelled"))
    return ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", default="i2c,fixtures,clean,throughput",
                    help="comma-separated: i2c, fixtures, clean, throughput, heldout")
    ap.add_argument("--cases", default="", help="clean part: only the cases whose path under "
                    "tests/cases contains one of these comma-separated strings; heldout part: "
                    "only the programs whose name contains one")
    ap.add_argument("--corpus", action="append", default=[], type=Path,
                    help="heldout part: a corpus folder with labels.toml (repeatable; default: "
                    "every benchmarks/heldout_races*/)")
    ap.add_argument("--program-seconds", type=float, default=120.0,
                    help="heldout part: the bound on one program's check --confirm")
    args = ap.parse_args()
    ONLY[:] = [c for c in args.cases.split(",") if c]
    HELDOUT[:] = [c.resolve() for c in args.corpus]
    PROGRAM_SECONDS[0] = args.program_seconds
    sys.path.insert(0, str(HERE))
    print(f"calibration: {calibration():.4f} s for 1M loop steps (min of 5)")
    ok = True
    parts = {"i2c": i2c, "fixtures": fixtures, "clean": clean_twins, "throughput": throughput,
             "heldout": heldout}
    for part in args.part.split(","):
        ok &= parts[part]()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
