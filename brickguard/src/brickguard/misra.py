"""MISRA C:2012 through cppcheck's misra addon, mapped into brickguard's findings.

cppcheck (2.x) runs the addon itself with ``--addon=misra``: it writes a dump of each unit into
its build folder and runs ``misra.py`` on it. It is given the same files and the same flags as
the libclang front end (include paths, defines, ``-std``, or the compile database), writes XML,
and brickguard keeps the ``misra-c2012-R.N`` results that fall in the project.

Each result becomes a finding of rule ``MISRA-C2012-R.N``; its level comes from the rule's
category (mandatory -> error, required -> warning, advisory -> note), and its headline from
``data/misra_rules.toml`` (the team's own words: the official texts are MISRA's copyright).

cppcheck runs as a subprocess started before the libclang parse, so the two overlap. It runs
on the project's files only (vendor and RTOS code, ``VENDOR_GLOBS`` and ``[build] exclude``, is
neither checked nor reported unless ``[misra] vendor = true``), in one preprocessor
configuration (``--max-configs=1``), with the macros that name the target's compiler
(``__GNUC__``... from ``toolchain.compiler_macros``: without them CMSIS stops at ``#error Unknown
compiler``), and with a progress line per file on stderr.

misra.py checks every preprocessor directive of every header against the others: for one
STM32 HAL unit that is 70,000 vendor macros and minutes of run time. So cppcheck runs it through
``data/misra_slim.py``, which drops the vendor headers' directives from each dump first (the
project's code is checked the same; what is lost is only rule 5.4/5.5's comparison of the
project's names with vendor macro names).

Nothing is ever skipped silently: cppcheck missing, failing or timing out, and a file where
cppcheck stopped (a ``#error``, a syntax error, an unknown macro), each become a BG002 note that
says what did not run, why, and the fix.
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import tomllib
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from brickguard.build_flags import database_compiler
from brickguard.config import Config
from brickguard.findings import Finding, Level, Location
from brickguard.globs import Globs
from brickguard.output import log
from brickguard.rules.analysis_not_run import ID, note
from brickguard.rules.base import Rule, no_findings
from brickguard.toolchain import compiler_macros

PREFIX = "MISRA-C2012-"
SKIPPED_ID = ID  # the note that says MISRA did not run (BG002, as every analysis)
DATA = Path(__file__).resolve().parent / "data"
RULES_FILE = DATA / "misra_rules.toml"
SLIM_ADDON = DATA / "misra_slim.py"
LEVELS = {"mandatory": Level.error, "required": Level.warning, "advisory": Level.note}
TIMEOUT_S = 1800
# Vendor and RTOS code: not the project's to fix; MISRA neither checks nor reports it unless
# [misra] vendor = true.
VENDOR_GLOBS = (
    "**/Drivers/**", "**/CMSIS/**", "**/*_HAL_Driver/**", "**/*_StdPeriph_Driver/**",
    "**/Middlewares/**", "**/ThirdParty/**", "**/Third_Party/**", "**/third_party/**",
    "**/FreeRTOS*/**", "**/freertos/**", "**/vendor/**", "**/*_template.c",
)
# cppcheck errors that mean it did not check (the rest of) a file: each becomes a BG002 note.
STOPPED = {
    "preprocessorErrorDirective": "a #error fired under cppcheck's preprocessor",
    "syntaxError": "cppcheck could not parse the code",
    "unknownMacro": "cppcheck met a macro it does not know",
    "internalAstError": "cppcheck failed on an expression",
    "internalError": "cppcheck failed internally",
    "cppcheckError": "cppcheck failed internally",
}
STOPPED_FIX = (
    "give cppcheck what the compiler knows: [build] defines (or [misra] flags = [\"-DNAME=...\"]) "
    "for the macro the code tests, [target] compiler for the compiler's own macros, or the "
    "project's compile_commands.json"
)


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


def vendor_globs(config: Config) -> Globs:
    """What MISRA treats as vendor code: VENDOR_GLOBS and [build] exclude."""
    return Globs([*VENDOR_GLOBS, *config.exclude], Path(config.root))


def find_misra_addon(exe: str) -> Path | None:
    """cppcheck's own misra.py, next to the executable or where Debian puts it."""
    real = Path(os.path.realpath(exe))
    candidates = [real.parent / "addons", real.parent.parent / "share/cppcheck/addons",
                  *map(Path, glob.glob("/usr/lib/*/cppcheck/addons")),
                  Path("/usr/share/cppcheck/addons"), Path("/usr/local/share/cppcheck/addons")]
    return next((c / "misra.py" for c in candidates if (c / "misra.py").is_file()), None)


def _addon_option(exe: str, config: Config, build_dir: Path) -> tuple[str, dict[str, str]]:
    """``--addon=...`` and the environment it needs: the slimming wrapper round cppcheck's
    misra.py when that is found (and vendor code is not asked for), else plain ``misra``."""
    addon = find_misra_addon(exe)
    if addon is None or config.misra_vendor:
        return "--addon=misra", {}
    spec = build_dir / "brickguard-misra.json"
    spec.write_text(json.dumps({"script": str(SLIM_ADDON), "ctu": True,
                                "python": sys.executable}), encoding="utf-8")
    settings = {"addon": str(addon), "root": str(config.root),
                "vendor": [*VENDOR_GLOBS, *config.exclude]}
    return f"--addon={spec}", {"BRICKGUARD_MISRA": json.dumps(settings)}


def cppcheck_command(files: list[str], config: Config, build_dir: Path) -> list[str]:
    """The cppcheck command line for these files under this configuration."""
    return _command(files, config, build_dir)[0]


def _command(files: list[str], config: Config, build_dir: Path) -> tuple[list[str], dict]:
    exe = shutil.which(config.cppcheck) or config.cppcheck
    build_dir.mkdir(parents=True, exist_ok=True)
    addon, env = _addon_option(exe, config, build_dir)
    cmd = [exe, addon, "--xml", f"--cppcheck-build-dir={build_dir}",
           f"--output-file={build_dir / 'results.xml'}", "--inline-suppr", "--language=c",
           "--max-configs=1"]
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
    compiler = config.compiler
    if config.compile_commands is not None:
        compiler = database_compiler(config.compile_commands) or compiler
    macros, _ = compiler_macros(compiler, flags)
    cmd += [f"-D{k}={v}" if v else f"-D{k}" for k, v in macros.items()]
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
    return cmd, env


class MisraRun:
    """One cppcheck run: ``start()`` before the libclang parse, ``finish()`` after it."""

    def __init__(self, files: list[str], config: Config) -> None:
        self.vendor = vendor_globs(config)
        self.all_files = files
        # The project's files only: vendor and RTOS sources are not MISRA-checked unless asked.
        self.files = files if config.misra_vendor else [f for f in files
                                                         if not self.vendor.match(f)]
        self.config = config
        self.stderr: list[str] = []
        self.threads: list[threading.Thread] = []
        self.proc: subprocess.Popen | None = None
        self.tmp: tempfile.TemporaryDirectory | None = None
        self.command: list[str] = []
        self.skipped: str | None = None

    def start(self) -> MisraRun:
        if not self.files:
            self.skipped = (f"all {len(self.all_files)} files are vendor code (set [misra] "
                            "vendor = true to check them)" if self.all_files else
                            "no C files to check")
            return self
        if shutil.which(self.config.cppcheck) is None:
            self.skipped = (
                f"cppcheck not found ({self.config.cppcheck!r} is not on PATH); install "
                "cppcheck 2.x (Debian/Ubuntu: apt-get install cppcheck) or set [misra] cppcheck"
            )
            return self
        self.tmp = tempfile.TemporaryDirectory(prefix="brickguard-misra-")
        self.command, env = _command(self.files, self.config, Path(self.tmp.name))
        try:
            self.proc = subprocess.Popen(
                self.command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                env={**os.environ, **env}, errors="replace",
            )
        except OSError as exc:
            self.skipped = f"cannot run {self.command[0]}: {exc.strerror or exc}"
            return self
        self.threads = [threading.Thread(target=self._progress, args=(self.proc.stdout,)),
                        threading.Thread(target=self._collect, args=(self.proc.stderr,))]
        for t in self.threads:
            t.daemon = True
            t.start()
        return self

    def _progress(self, stream) -> None:
        """cppcheck's 'Checking FILE ...' lines become one progress line per file on stderr."""
        n = 0
        for line in stream:
            m = _CHECKING.match(line.rstrip("\n"))
            if m:
                n += 1
                log(f"brickguard: MISRA {n}/{len(self.files)} {m.group(1)}")

    def _collect(self, stream) -> None:
        self.stderr.extend(stream)

    def finish(self) -> tuple[list[Finding], list[Rule]]:
        """Findings (or the one note that says why MISRA was skipped) and the rules that fired."""
        try:
            if self.proc is not None:
                try:
                    self.proc.wait(timeout=TIMEOUT_S)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
                    self.skipped = (f"cppcheck ran over {TIMEOUT_S} s and was stopped; check "
                                    "fewer files at a time, or exclude generated code")
                else:
                    for t in self.threads:
                        t.join()
                    out = Path(self.tmp.name) / "results.xml" if self.tmp else None
                    if out is not None and out.is_file() and self.proc.returncode == 0:
                        return self._parse(out)
                    err = "".join(self.stderr)
                    tail = err.strip().splitlines()[-1:] or [f"exit {self.proc.returncode}"]
                    self.skipped = f"cppcheck failed: {tail[0]}"
            return [self._skipped_note()], []
        finally:
            if self.tmp is not None:
                self.tmp.cleanup()

    def _skipped_note(self) -> Finding:
        cfg = self.config
        where = str(cfg.source) if cfg.source else (self.all_files[0] if self.all_files else ".")
        return note(f"MISRA C:2012 checks skipped: {self.skipped}", where)

    def _parse(self, xml_path: Path) -> tuple[list[Finding], list[Rule]]:
        try:
            root = ET.parse(xml_path).getroot()
        except ET.ParseError as exc:
            self.skipped = f"cannot read cppcheck's XML output: {exc}"
            return [self._skipped_note()], []
        keep = _ProjectFiles(self.files, Path(self.config.root),
                             None if self.config.misra_vendor else self.vendor)
        findings: list[Finding] = []
        stopped: dict[str, str] = {}
        seen: set[tuple[str, str, int, int]] = set()
        for err in root.iter("error"):
            ident = err.get("id", "")
            loc = err.find("location")
            if ident in STOPPED:
                unit = err.get("file0") or (loc.get("file", "") if loc is not None else "")
                at = (f" at {loc.get('file')}:{loc.get('line')}" if loc is not None else "")
                stopped.setdefault(keep.given.get(os.path.realpath(unit), unit),
                                   f"{STOPPED[ident]}{at}: {err.get('msg', '')}")
                continue
            if not ident.startswith("misra-c2012-"):
                continue
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
        for unit, why in sorted(stopped.items()):
            findings.append(note(
                f"MISRA C:2012 not checked in this file: {why}; cppcheck stopped here, so its "
                f"MISRA results for the file are missing; {STOPPED_FIX}", unit))
        return findings, [rule_info(n) for n in numbers]


class _ProjectFiles:
    """Which reported paths are the project's: the files checked and anything under the root.
    Paths come back as the analysed files were given, so reports and baselines agree."""

    def __init__(self, files: list[str], root: Path, vendor: Globs | None = None) -> None:
        self.given = {os.path.realpath(f): f for f in files}
        self.root = os.path.realpath(root)
        self.vendor = vendor

    def match(self, file: str) -> str | None:
        real = os.path.realpath(file)
        if real in self.given:
            return self.given[real]
        if real.startswith(self.root + os.sep) and not (self.vendor and self.vendor.match(real)):
            return file
        return None


_CHECKING = re.compile(r"^Checking (.+) \.\.\.$")


def _rule_key(number: str) -> tuple[int, ...]:
    return tuple(int(p) if p.isdigit() else 0 for p in number.split("."))
