"""The pipeline: files -> front end (parallel, one process per TU) -> program model -> rules.

One process per run: the parent collects the files (``[build] exclude`` applied), starts
cppcheck for MISRA, parses the units in a pool of worker processes (facts come back, libclang
objects never cross), builds the program model once and runs every rule on it. A run that takes
more than a few seconds shows a progress line on stderr.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from brickguard.build_flags import load_compile_commands
from brickguard.config import Config
from brickguard.errors import BrickguardError
from brickguard.facts import UnitFacts
from brickguard.findings import Finding
from brickguard.frontend import FrontEnd
from brickguard.globs import Globs
from brickguard.program import Context, Program
from brickguard.rules import all_rules
from brickguard.rules.base import Rule

SOURCE_SUFFIXES = (".c",)
PROGRESS_AFTER_S = 2.0  # a run still going after this long shows progress on stderr
HEARTBEAT_S = 5.0  # and, while one step runs long (a 5 MB file), a line this often


class NoSourcesError(BrickguardError):
    """The paths given hold no C file to check (after ``[build] exclude``)."""


@dataclass
class AnalysisResult:
    findings: list[Finding]  # sorted by file, line, column, rule
    files: list[str]  # the translation units analysed, as given
    rules: list[Rule]  # the rules that ran (selected and not ignored)
    lines: int = 0  # source lines of the translation units (not headers)
    # Interrupt contexts by entry name, as the program model has them (its line, how it is
    # entered, zero-latency, its priority level): what ``check --confirm`` injects them as
    # (soak/confirm.py).
    interrupts: dict[str, Context] = field(default_factory=dict)


def collect_sources(paths: Sequence[Path], exclude: Globs | None = None) -> list[Path]:
    """C files named, and the *.c files under folders named (sorted, recursively), less those
    an ``exclude`` glob matches (a file named on its own is kept: it was asked for)."""
    files: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            found = sorted(q for q in p.rglob("*") if q.suffix in SOURCE_SUFFIXES and q.is_file())
            files.extend(q for q in found if not (exclude and exclude.match(q)))
        elif p.is_file():
            files.append(p)
        else:
            raise BrickguardError(f"{p}: no such file or directory")
    seen: set[Path] = set()
    unique = []
    for f in files:
        key = f.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(f)
    return unique


def _none_found(paths: Sequence[Path], config: Config, exclude: Globs) -> NoSourcesError:
    searched = ", ".join(str(p) for p in paths) or "(no paths)"
    total = sum(1 for p in paths if Path(p).is_dir()
                for q in Path(p).rglob("*") if q.suffix in SOURCE_SUFFIXES)
    why = f"no *.c files under {searched} (searched recursively)"
    if total:
        where = f" in {config.source}" if config.source else ""
        why = (f"all {total} *.c files under {searched} are excluded by [build] exclude{where} "
               f"({', '.join(exclude.patterns)})")
    return NoSourcesError(f"nothing to check: {why}; name C files or folders that hold them")


def analyze(paths: Sequence[Path], config: Config) -> AnalysisResult:
    """Analyse C files or folders under ``config``; parse errors become BG000 findings.

    Raises BrickguardError for a missing path or an unreadable compile database.
    """
    exclude = Globs(config.exclude, Path(config.root))
    files = collect_sources(paths, exclude)
    if config.compile_commands is not None:
        commands = load_compile_commands(config.compile_commands)
        if not paths:
            files = [Path(f) for f in commands if not exclude.match(f)]
    if not files:
        raise _none_found(paths, config, exclude)
    front = FrontEnd(config)
    misra = None
    if config.misra:  # cppcheck's MISRA addon runs alongside the libclang parse
        from brickguard.misra import MisraRun

        misra = MisraRun([str(f) for f in files], config).start()
    with Progress() as progress:
        units = list(progress.units(_parse_all(front, [str(f) for f in files], config.jobs),
                                    [str(f) for f in files]))
        progress.stage = "building the program model"
        program = Program.build(units, config)
        rules = [r for r in all_rules() if config.reports(r.id)]
        findings: list[Finding] = []
        for rule in rules:
            progress.stage = f"running {rule.id}"
            findings.extend(rule.check(program, config))
        progress.stage = "waiting for cppcheck (MISRA)"
        misra_result = misra.finish() if misra is not None else None
    if misra_result is not None:
        misra_findings, misra_rules = misra_result
        findings.extend(misra_findings)
        rules = [*rules, *misra_rules]  # SARIF describes every MISRA rule that fired
    findings = _dedupe(findings)
    findings.sort(key=Finding.sort_key)
    return AnalysisResult(
        findings=findings,
        files=[u.file for u in units],
        rules=rules,
        lines=sum(u.lines for u in units),
        interrupts={c.name: replace(c, level=program.priority(c))
                    for cs in program.contexts.values() for c in cs if c.is_interrupt},
    )


def _parse_all(front: FrontEnd, files: list[str], jobs: int) -> Iterator[UnitFacts]:
    workers = jobs or os.cpu_count() or 1
    workers = min(workers, len(files))
    if workers <= 1:  # one file (or -j1): no pool to start, the parse runs here
        yield from (front.parse(f) for f in files)
        return
    # Facts are plain dataclasses: cheap to pickle back. libclang objects never cross processes.
    chunk = max(1, min(4, len(files) // (workers * 4)))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        yield from pool.map(front.parse, files, chunksize=chunk)


class Progress:
    """Progress on stderr, only for runs that take a while: after PROGRESS_AFTER_S a line per
    file parsed, and every HEARTBEAT_S a line saying what is still running (one long file)."""

    def __init__(self) -> None:
        self.start = time.monotonic()
        self.stage = "starting"
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._beat, daemon=True)

    def __enter__(self) -> Progress:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()

    def _beat(self) -> None:
        while not self._done.wait(HEARTBEAT_S):
            _say(f"still {self.stage} ({time.monotonic() - self.start:.0f} s)")

    def units(self, units: Iterator[UnitFacts], files: list[str]) -> Iterator[UnitFacts]:
        """Pass the units through, saying which file is being parsed and which are done."""
        self.stage = f"parsing {files[0]} (1/{len(files)})" if files else "parsing"
        for n, unit in enumerate(units, start=1):
            if time.monotonic() - self.start > PROGRESS_AFTER_S:
                _say(f"parsed {n}/{len(files)} {unit.file}")
            if n < len(files):
                self.stage = f"parsing {files[n]} ({n + 1}/{len(files)})"
            yield unit


def _say(message: str) -> None:
    print(f"brickguard: {message}", file=sys.stderr, flush=True)


def _dedupe(findings: list[Finding]) -> list[Finding]:
    # A header's diagnostic shows up once per unit that includes it: report it once.
    seen: set[tuple] = set()
    out = []
    for f in findings:
        key = (f.rule, f.location.file, f.location.line, f.location.column, f.message)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out
