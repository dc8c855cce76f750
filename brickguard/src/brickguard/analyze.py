"""The pipeline: files -> front end (parallel, one process per TU) -> program model -> rules."""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from brickguard.build_flags import load_compile_commands
from brickguard.config import Config
from brickguard.errors import BrickguardError
from brickguard.facts import UnitFacts
from brickguard.findings import Finding
from brickguard.frontend import FrontEnd
from brickguard.program import Program
from brickguard.rules import all_rules
from brickguard.rules.base import Rule

SOURCE_SUFFIXES = (".c",)


@dataclass
class AnalysisResult:
    findings: list[Finding]  # sorted by file, line, column, rule
    files: list[str]  # the translation units analysed, as given
    rules: list[Rule]  # the rules that ran (selected and not ignored)
    lines: int = 0  # source lines of the translation units (not headers)


def collect_sources(paths: Sequence[Path]) -> list[Path]:
    """C files named, and the *.c files under folders named (sorted, recursively)."""
    files: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            files.extend(sorted(q for q in p.rglob("*") if q.suffix in SOURCE_SUFFIXES))
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


def analyze(paths: Sequence[Path], config: Config) -> AnalysisResult:
    """Analyse C files or folders under ``config``; parse errors become BG000 findings.

    Raises BrickguardError for a missing path or an unreadable compile database.
    """
    files = collect_sources(paths)
    if config.compile_commands is not None:
        commands = load_compile_commands(config.compile_commands)
        if not paths:
            files = [Path(f) for f in commands]
    front = FrontEnd(config)
    misra = None
    if config.misra:  # cppcheck's MISRA addon runs alongside the libclang parse
        from brickguard.misra import MisraRun

        misra = MisraRun([str(f) for f in files], config).start()
    units = _parse_all(front, [str(f) for f in files], config.jobs)
    program = Program.build(units, config)
    rules = [r for r in all_rules() if config.rule_enabled(r.id)]
    findings: list[Finding] = []
    for rule in rules:
        findings.extend(rule.check(program, config))
    if misra is not None:
        misra_findings, misra_rules = misra.finish()
        findings.extend(misra_findings)
        rules = [*rules, *misra_rules]  # SARIF describes every MISRA rule that fired
    findings = _dedupe(findings)
    findings.sort(key=Finding.sort_key)
    return AnalysisResult(
        findings=findings,
        files=[u.file for u in units],
        rules=rules,
        lines=sum(u.lines for u in units),
    )


def _parse_all(front: FrontEnd, files: list[str], jobs: int) -> list[UnitFacts]:
    workers = jobs or os.cpu_count() or 1
    workers = min(workers, len(files))
    if workers <= 1:
        return [front.parse(f) for f in files]
    # Facts are plain dataclasses: cheap to pickle back. libclang objects never cross processes.
    chunk = max(1, len(files) // (workers * 4))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(front.parse, files, chunksize=chunk))


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
