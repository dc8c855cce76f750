"""Benchmark: the vendor-demo protocol rules (BG401-BG404) on a mutation evaluation of the
vendor's own example projects, mined leave-one-project-out.

For each example project that parses, every protocol step it takes is a mutant: one at a time
removed from a copy of its source (a peripheral or port clock enable, an NVIC enable, the
dispatcher call in an IRQ handler, a DMA link, HAL_Init) or, for a callback it defines, the
callback's name misspelt. Steps the project takes twice (removing one changes nothing) are left
out and counted. Each project is checked against rules mined from the *other* projects only.

Prints: recall (mutants with a new BG4xx finding that names the removed step), findings on the
unaltered projects (target 0), whether each detecting finding's cited example line holds the
step, the index time for all the examples (target < 60 s) and the cached load (target < 1 s),
with a calibration figure (one libclang parse of one example file) beside the times.

    python brickguard/benchmarks/bench_demo_protocol.py [--demos DIR] [--min-support 3]
        [--sweep 2,3,4,5] [--jobs 0] [--kinds clock,irq_enable,...]
"""

from __future__ import annotations

import argparse
import pickle
import re
import shutil
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from pathlib import Path

from brickguard.config import Config
from brickguard.demos import index as di
from brickguard.demos.check import findings_for
from brickguard.demos.projects import Project
from brickguard.facts import UnitFacts
from brickguard.frontend import FrontEnd

DEFAULT_DEMOS = Path(__file__).resolve().parents[2].parent / "shared/firmware/stm32f4/demos"
KINDS = ("clock", "irq_enable", "dispatch", "link", "hal_init", "callback")


@dataclass(frozen=True)
class Mutant:
    project: str
    kind: str
    file: str
    line: int
    column: int
    name: str  # the step removed (canonical), or the callback renamed
    new_name: str = ""  # a callback's new (misspelt) name


def canonical(m, x) -> str | None:
    return m.api(x)


def mutants_of(name: str, units: list[UnitFacts], model, kinds) -> tuple[list[Mutant], int]:
    """Every protocol step of one example, and how many were left out as taken twice."""
    out, twice = [], 0
    steps: Counter = Counter()
    sites = []
    handlers = set(model.handlers)
    for u in units:
        for x in u.uses:
            api = model.api(x)
            if api is None:
                continue
            args = tuple(model.members.get(a, a) for a in x.args)
            kind = None
            if re.fullmatch(r"__HAL_RCC_\w+_CLK_ENABLE", api):
                kind = "clock"
            elif api == "HAL_NVIC_EnableIRQ":
                kind = "irq_enable"
            elif x.function in handlers and api.endswith("IRQHandler") and api.startswith("HAL_"):
                kind = "dispatch"
            elif api == "__HAL_LINKDMA":
                kind = "link"
            elif api == "HAL_Init":
                kind = "hal_init"
            if kind is None or kind not in kinds:
                continue
            if x.function not in model.defs or (kind != "dispatch" and not _reached(model, x)):
                continue
            key = (api, args if kind != "clock" else ())
            steps[key] += 1
            sites.append((key, Mutant(name, kind, x.where.file, x.where.line, x.where.column,
                                      api)))
    for key, mu in sites:
        if steps[key] > 1:
            twice += 1
        else:
            out.append(mu)
    if "callback" in kinds:
        for d in model.defs.values():
            if d.name in model.sdk_callbacks and d.name.endswith("Callback"):
                new = d.name.replace("Cplt", "Complete") if "Cplt" in d.name else (
                    d.name.replace("Callback", "CallBack"))
                out.append(Mutant(name, "callback", d.where.file, d.where.line, d.where.column,
                                  d.name, new))
    return out, twice


def _reached(model, x) -> bool:
    """The use is on the program's trace (a de-initialisation nobody calls is not a step)."""
    return any(e.where == x.where for e in model.trace)


def apply(mu: Mutant, text: str) -> str | None:
    lines = text.split("\n")
    i = mu.line - 1
    line = lines[i]
    col = mu.column - 1
    if mu.kind == "callback":
        if line[col:col + len(mu.name)] != mu.name:
            return None
        lines[i] = line[:col] + mu.new_name + line[col + len(mu.name):]
        return "\n".join(lines)
    m = re.match(r"[A-Za-z_]\w*\s*\(", line[col:])
    if not m:
        return None
    depth, j = 0, col + m.end() - 1
    while j < len(line):
        depth += {"(": 1, ")": -1}.get(line[j], 0)
        if depth == 0:
            break
        j += 1
    if depth != 0:
        return None
    lines[i] = line[:col] + "0" + line[j + 1:]
    return "\n".join(lines)


def copy_project(p: Project, to: Path) -> tuple[Project, dict[Path, Path]]:
    dest = to / p.root.name
    shutil.copytree(p.root, dest, ignore=shutil.ignore_patterns("EWARM", "MDK-ARM",
                                                                 "STM32CubeIDE"))
    moved = {s: dest / s.relative_to(p.root) for s in p.sources}
    include = [dest / d.relative_to(p.root) if _inside(d, p.root) else d for d in p.include]
    q = replace(p, root=dest, sources=list(moved.values()), include=include)
    return q, moved


def _inside(d: Path, root: Path) -> bool:
    try:
        d.relative_to(root)
        return True
    except ValueError:
        return False


def cited_ok(finding) -> bool | None:
    """The finding's first cited example line holds the step as the example writes it; None
    when it cites no example (a BG403 callback that only the left-out project defines)."""
    for loc in finding.related:
        if loc.message.startswith("example: "):
            written = loc.message[len("example: "):]
            try:
                text = Path(loc.file).read_text(errors="replace").split("\n")[loc.line - 1]
            except (OSError, IndexError):
                return False
            return re.search(rf"(?<!\w){re.escape(written)}(?!\w)", text) is not None
    return None


def detects(mu: Mutant, new) -> list:
    name = mu.new_name or mu.name
    return [f for f in new if name in f.message or (
        mu.kind == "dispatch" and mu.name in f.message)]


def calibrate(p: Project) -> float:
    system = di.system_include_dirs()
    fe = FrontEnd(di._config(p, system))
    best = 1e9
    for _ in range(3):
        t = time.perf_counter()
        fe.parse(str(p.sources[0]))
        best = min(best, time.perf_counter() - t)
    return best


def run(opts) -> int:
    demos = Path(opts.demos)
    if not demos.is_dir():
        print(f"skipped: no demos at {demos} (the shared firmware is absent)")
        return 0
    kinds = tuple(opts.kinds.split(",")) if opts.kinds else KINDS
    notes: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache"
        t0 = time.perf_counter()
        full = di.load_index([demos], opts.min_support, cache, opts.jobs)
        t_index = time.perf_counter() - t0
        t0 = time.perf_counter()
        di.load_index([demos], opts.min_support, cache, opts.jobs)
        t_cached = time.perf_counter() - t0
        projects = di.discover([demos], notes)
        calib = calibrate(projects[0])
        print(f"examples: {len(projects)} projects; full index: {full.counts()}")
        for n in full.notes:
            print(f"  note: {n}")
        print(f"index build (all examples, {opts.jobs or 'all'} jobs): {t_index:.1f} s "
              f"(target < 60 s); cached load: {t_cached:.3f} s (target < 1 s)")
        print(f"calibration: one libclang parse of {projects[0].sources[0].name} "
              f"({projects[0].name}): {calib:.3f} s")
        keep = Path(opts.keep) if opts.keep else None
        saved = pickle.loads(keep.read_bytes()) if keep is not None and keep.is_file() else None
        parsed = saved[0] if saved else di.parse_projects(projects, opts.jobs)
        models = {p.name: di.model_of(p, parsed[p.name]) for p in projects}
        patterns = Config(root=demos).interrupt_patterns
        supports = [int(s) for s in opts.sweep.split(",")] if opts.sweep else [opts.min_support]
        all_mutants = {}
        twice_total = 0
        for p in projects:
            ms, twice = mutants_of(p.name, parsed[p.name], models[p.name], kinds)
            all_mutants[p.name] = ms
            twice_total += twice
        total = sum(len(v) for v in all_mutants.values())
        by_kind_total = Counter(m.kind for v in all_mutants.values() for m in v)
        print(f"mutants: {total} ({', '.join(f'{k} {n}' for k, n in sorted(by_kind_total.items()))}"
              f"); left out as taken twice: {twice_total}; projects with none: "
              f"{sum(1 for v in all_mutants.values() if not v)}")
        mutated_units: dict[tuple, list[UnitFacts]] = {}
        work = Path(tmp) / "work"
        work.mkdir()
        system = di.system_include_dirs()
        t_mut = time.perf_counter()
        for p in projects:
            if saved:
                mutated_units = saved[1]
                break
            if not all_mutants[p.name]:
                continue
            q, moved = copy_project(p, work / str(len(list(work.iterdir()))))
            fe = FrontEnd(di._config(q, system))
            back = {str(v): str(k) for k, v in moved.items()}
            for mu in all_mutants[p.name]:
                src = next(k for k in moved if str(k) == mu.file)
                text = src.read_text(errors="replace")
                new = apply(mu, text)
                if new is None:
                    continue
                moved[src].write_text(new)
                unit = fe.parse(str(moved[src]))
                moved[src].write_text(text)
                unit = _relocate(unit, back)
                units = [unit if u.file == mu.file else u for u in parsed[p.name]]
                mutated_units[(p.name, mu)] = units
        t_mut = time.perf_counter() - t_mut
        if keep is not None and not saved:
            keep.write_bytes(pickle.dumps((parsed, mutated_units)))
        print(f"mutant parses: {len(mutated_units)} in {t_mut:.1f} s")
        for k in supports:
            _score(k, projects, models, parsed, all_mutants, mutated_units, patterns, opts.misses)
    return 0


def _relocate(unit: UnitFacts, back: dict[str, str]) -> UnitFacts:
    """A mutant parsed from the copy, with its facts named by the original paths."""
    from dataclasses import replace as rep

    def w(where):
        return rep(where, file=back.get(where.file, where.file))

    unit.file = back.get(unit.file, unit.file)
    unit.uses = [rep(x, where=w(x.where)) for x in unit.uses]
    unit.defs = [rep(d, where=w(d.where)) for d in unit.defs]
    unit.instances = [rep(i, where=w(i.where)) for i in unit.instances]
    return unit


def _score(k, projects, models, parsed, all_mutants, mutated_units, patterns,
           opts_misses: int = 6) -> None:
    found = Counter()
    kinds = Counter()
    cites_ok = cites = 0
    fp = 0
    fp_lines = []
    misses = []
    bad_cites = []
    uncited = 0
    t = time.perf_counter()
    for p in projects:
        others = {n: m for n, m in models.items() if n != p.name}
        idx = di.index_of(others, k, [])
        base = findings_for(parsed[p.name], idx, patterns)
        fp += len(base)
        fp_lines += [f"{p.name}: {f.rule} {f.message[:150]}" for f in base]
        seen = {(f.rule, f.message) for f in base}
        for mu in all_mutants[p.name]:
            units = mutated_units.get((p.name, mu))
            if units is None:
                continue
            kinds[mu.kind] += 1
            got = [f for f in findings_for(units, idx, patterns)
                   if (f.rule, f.message) not in seen]
            hit = detects(mu, got)
            if hit:
                found[mu.kind] += 1
                ok = cited_ok(hit[0])
                if ok is None:
                    uncited += 1
                    continue
                cites += 1
                cites_ok += ok
                if not ok:
                    bad_cites.append(f"{p.name.split('/')[-1]}: {hit[0].message[:160]}")
            else:
                misses.append(f"{p.name.split('/')[-1]}: {mu.kind} {mu.name} "
                              f"({Path(mu.file).name}:{mu.line})")
    took = time.perf_counter() - t
    n = sum(kinds.values())
    hits = sum(found.values())
    print(f"\nmin_support {k}: recall {hits}/{n} = {100 * hits / max(n, 1):.1f}% "
          f"(target >= 90%); findings on unaltered projects: {fp} (target 0); "
          f"cited example line holds the step: {cites_ok}/{cites} ({uncited} cite no example); "
          f"{len(projects)} leave-one-out minings + checks in {took:.1f} s")
    for kind in sorted(kinds):
        print(f"  {kind:<11} {found[kind]:>3}/{kinds[kind]:<3}")
    for line in fp_lines[:10]:
        print(f"  unaltered: {line}")
    for line in bad_cites[:10]:
        print(f"  cited line lacks the step: {line}")
    by = defaultdict(list)
    for line in misses:
        by[line.split(" ")[1]].append(line)
    for _, lines in sorted(by.items()):
        for line in lines[:opts_misses]:
            print(f"  missed: {line}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--demos", default=str(DEFAULT_DEMOS))
    ap.add_argument("--min-support", type=int, default=3)
    ap.add_argument("--sweep", default="", help="min_support values to score, e.g. 2,3,4,5")
    ap.add_argument("--jobs", type=int, default=0)
    ap.add_argument("--kinds", default="", help=f"only these ({', '.join(KINDS)})")
    ap.add_argument("--misses", type=int, default=6, help="missed mutants to list per kind")
    ap.add_argument("--keep", default="", help="pickle the parses here and reuse them (tuning)")
    return run(ap.parse_args())


if __name__ == "__main__":
    sys.exit(main())
