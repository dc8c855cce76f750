"""MISRA C:2012 through cppcheck's misra addon, mapped into brickguard's findings.

cppcheck (2.x) runs the addon itself with ``--addon=misra``: it writes a dump of each unit into
its build folder and runs ``misra.py`` on it. It is given the same files and the same flags as
the libclang front end (include paths, defines, ``-std``, or the compile database), writes XML,
and brickguard keeps the ``misra-c2012-R.N`` results that fall in the project.

Each result becomes a finding of rule ``MISRA-C2012-R.N``; its level comes from the rule's
category (mandatory -> error, required -> warning, advisory -> note), and its headline from
``data/misra_rules.toml`` (the team's own words: the official texts are MISRA's copyright).

cppcheck runs as a subprocess started before the libclang parse, so the two overlap. Without
cppcheck the run goes on: one note-level finding says MISRA was skipped and why.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import tomllib
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from brickguard.config import Config
from brickguard.findings import Finding, Level, Location
from brickguard.rules.base import Rule, no_findings

PREFIX = "MISRA-C2012-"
SKIPPED_ID = "MISRA-C2012"
RULES_FILE = Path(__file__).resolve().parent / "data" / "misra_rules.toml"
LEVELS = {"mandatory": Level.error, "required": Level.warning, "advisory": Level.note}
TIMEOUT_S = 1800


@dataclass(frozen=True)
class MisraRule:
    number: str  # "10.4"
    category: str  # mandatory | required | advisory
    summary: str  # the team's own one-line headline

    @property
    def id(self) -> str:
        return PREFIX + self.number

    @property
    def level(self) -> Level:
        return LEVELS.get(self.category, Level.warning)


@lru_cache(maxsize=1)
def misra_rules() -> dict[str, MisraRule]:
    """The rule table: number -> MisraRule."""
    data = tomllib.loads(RULES_FILE.read_text(encoding="utf-8"))["rules"]
    return {n: MisraRule(n, v["category"], v["summary"]) for n, v in data.items()}


def misra_rule(number: str) -> MisraRule:
    return misra_rules().get(number) or MisraRule(number, "required", f"MISRA C:2012 rule {number}")


def rule_info(number: str) -> Rule:
    """A ``Rule`` for reports and ``explain``: SARIF's rule list carries these."""
    r = misra_rule(number)
    return Rule(
        id=r.id,
        title=r.summary,
        level=r.level,
        rationale=(
            f"MISRA C:2012 rule {r.number} ({r.category}), checked by cppcheck's misra addon. "
            "The headline is brickguard's own summary; the rule's official text and rationale "
            "are in the MISRA C:2012 guidelines."
        ),
        instead=(
            "Change the code to follow the rule, or record a deviation: "
            f"`// brickguard: ignore[{r.id}] reason` on the line, or list the rule in "
            "[rules] ignore."
        ),
        example_bad="",
        example_good="",
        check=no_findings,
    )


def cppcheck_command(files: list[str], config: Config, build_dir: Path) -> list[str]:
    """The cppcheck command line for these files under this configuration."""
    exe = shutil.which(config.cppcheck) or config.cppcheck
    cmd = [exe, "--addon=misra", "--xml", "-q", f"--cppcheck-build-dir={build_dir}",
           f"--output-file={build_dir / 'results.xml'}", "--inline-suppr", "--language=c"]
    jobs = config.jobs or os.cpu_count() or 1
    if jobs > 1 and len(files) > 1:
        cmd.append(f"-j{min(jobs, len(files))}")
    platform = {32: "unix32", 64: "unix64"}.get(config.word_bits)
    if platform:
        cmd.append(f"--platform={platform}")
    flags = list(config.extra_flags)
    std = next((f.split("=", 1)[1] for f in flags if f.startswith("-std=")), None)
    if std and std.replace("gnu", "c") in ("c89", "c99", "c11", "c17"):
        cmd.append(f"--std={std.replace('gnu', 'c')}")
    if config.compile_commands is not None:
        cmd.append(f"--project={config.compile_commands}")
        cmd += [f"--file-filter={f}" for f in files]
    else:
        cmd += [f"-I{p}" for p in config.include]
        cmd += [f"-I{f[2:]}" for f in flags if f.startswith("-I") and len(f) > 2]
        cmd += [f"-D{d}" for d in config.defines]
        cmd += [f"-D{f[2:]}" for f in flags if f.startswith("-D") and len(f) > 2]
        cmd += list(files)
    cmd[1:1] = config.misra_flags
    return cmd


class MisraRun:
    """One cppcheck run: ``start()`` before the libclang parse, ``finish()`` after it."""

    def __init__(self, files: list[str], config: Config) -> None:
        self.files = files
        self.config = config
        self.proc: subprocess.Popen | None = None
        self.tmp: tempfile.TemporaryDirectory | None = None
        self.command: list[str] = []
        self.skipped: str | None = None

    def start(self) -> MisraRun:
        if not self.files:
            self.skipped = "no C files to check"
            return self
        if shutil.which(self.config.cppcheck) is None:
            self.skipped = (
                f"cppcheck not found ({self.config.cppcheck!r} is not on PATH); install "
                "cppcheck 2.x (Debian/Ubuntu: apt-get install cppcheck) or set [misra] cppcheck"
            )
            return self
        self.tmp = tempfile.TemporaryDirectory(prefix="brickguard-misra-")
        self.command = cppcheck_command(self.files, self.config, Path(self.tmp.name))
        try:
            self.proc = subprocess.Popen(
                self.command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
            )
        except OSError as exc:
            self.skipped = f"cannot run {self.command[0]}: {exc.strerror or exc}"
        return self

    def finish(self) -> tuple[list[Finding], list[Rule]]:
        """Findings (or the one note that says why MISRA was skipped) and the rules that fired."""
        try:
            if self.proc is not None:
                try:
                    _, err = self.proc.communicate(timeout=TIMEOUT_S)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.communicate()
                    self.skipped = f"cppcheck ran over {TIMEOUT_S} s and was stopped"
                else:
                    out = Path(self.tmp.name) / "results.xml" if self.tmp else None
                    if out is not None and out.is_file():
                        return self._parse(out)
                    tail = (err or "").strip().splitlines()[-1:] or [f"exit {self.proc.returncode}"]
                    self.skipped = f"cppcheck failed: {tail[0]}"
            return [self._skipped_note()], []
        finally:
            if self.tmp is not None:
                self.tmp.cleanup()

    def _skipped_note(self) -> Finding:
        cfg = self.config
        where = str(cfg.source) if cfg.source else (self.files[0] if self.files else ".")
        message = f"MISRA C:2012 checks skipped: {self.skipped}"
        return Finding(SKIPPED_ID, Level.note, message, Location(where, 1, 1))

    def _parse(self, xml_path: Path) -> tuple[list[Finding], list[Rule]]:
        try:
            root = ET.parse(xml_path).getroot()
        except ET.ParseError as exc:
            self.skipped = f"cannot read cppcheck's XML output: {exc}"
            return [self._skipped_note()], []
        keep = _ProjectFiles(self.files, Path(self.config.root))
        findings: list[Finding] = []
        seen: set[tuple[str, str, int, int]] = set()
        for err in root.iter("error"):
            ident = err.get("id", "")
            if not ident.startswith("misra-c2012-"):
                continue
            loc = err.find("location")
            if loc is None:
                continue
            file = loc.get("file", "")
            resolved = keep.match(file)
            if resolved is None:
                continue  # an SDK or system header: not this project's code
            number = ident[len("misra-c2012-"):]
            line, col = int(loc.get("line", "1") or 1), int(loc.get("column", "1") or 1)
            key = (number, resolved, line, col)
            if key in seen:
                continue
            seen.add(key)
            r = misra_rule(number)
            message = f"MISRA C:2012 rule {number} ({r.category}): {r.summary}"
            findings.append(Finding(r.id, r.level, message, Location(resolved, line, max(col, 1))))
        numbers = sorted({f.rule[len(PREFIX):] for f in findings}, key=_rule_key)
        return findings, [rule_info(n) for n in numbers]


class _ProjectFiles:
    """Which reported paths are the project's: the files checked and anything under the root.
    Paths come back as the analysed files were given, so reports and baselines agree."""

    def __init__(self, files: list[str], root: Path) -> None:
        self.given = {os.path.realpath(f): f for f in files}
        self.root = os.path.realpath(root)

    def match(self, file: str) -> str | None:
        real = os.path.realpath(file)
        if real in self.given:
            return self.given[real]
        if real.startswith(self.root + os.sep):
            return file
        return None


def _rule_key(number: str) -> tuple[int, ...]:
    return tuple(int(p) if p.isdigit() else 0 for p in number.split("."))
