"""BG000: the front end could not read a file the way the compiler would.

The findings are clang's own errors, one per diagnostic (a header's, once), with the front
end's hint when the set-up causes it. A diagnostic an enabled SDK rule (BG201-BG205) explains
is left to that rule; warnings are kept only for the SDK rules and never reported here.

A missing header is reported once for the whole run, however many files include it, with the
other places that include it as related locations. The files that miss it are parsed on; the
errors that follow in them (undeclared names) are counted in that one finding, not listed, and
BG002 names the functions they left incomplete.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from brickguard.config import Config
from brickguard.facts import DiagnosticFact
from brickguard.findings import Finding, Level, Location
from brickguard.program import Program
from brickguard.rules.base import Rule
from brickguard.rules.messages import here

_MISSING = re.compile(r"^'([^']+)' file not found")


def _text(d: DiagnosticFact) -> str:
    return f"clang {d.severity}: {d.message}" + (f" ({d.hint})" if d.hint else "")


def check(program: Program, config: Config) -> Iterable[Finding]:
    claimed = program.claimed_diagnostics
    missing: dict[str, list[DiagnosticFact]] = {}
    files: dict[str, set[str]] = {}
    later: dict[str, int] = {}
    for unit in program.units:
        lost = [m.group(1) for d in unit.diagnostics if (m := _MISSING.match(d.message))]
        for d in unit.diagnostics:
            if d.severity == "warning" or d in claimed:
                continue
            m = _MISSING.match(d.message)
            if m:
                seen = missing.setdefault(m.group(1), [])
                if d.where not in {s.where for s in seen}:
                    seen.append(d)
                files.setdefault(m.group(1), set()).add(unit.file)
            elif lost and d.severity == "error":
                later[lost[0]] = later.get(lost[0], 0) + 1  # follows from the missing header
            else:
                yield Finding("BG000", RULE.level, _text(d), here(d.where, d.message))
    for header, seen in missing.items():
        first = seen[0]
        n, k = len(files[header]), later.get(header, 0)
        message = (f"{_text(first)}; reported once: {n} file{'s' if n != 1 else ''} "
                   f"{'miss' if n != 1 else 'misses'} it and {'were' if n != 1 else 'was'} parsed "
                   "on without it")
        if k:
            message += f" ({k} later error{'s' if k != 1 else ''} from the missing declarations)"
        related = tuple(Location(d.where.file, d.where.line, d.where.column, "also included here")
                        for d in seen[1:])
        yield Finding("BG000", RULE.level, message, here(first.where, first.message), related)


RULE = Rule(
    id="BG000",
    title="front-end diagnostic: the file does not parse or misses includes",
    level=Level.error,
    rationale=(
        "brickguard reads C the way the compiler does. When clang cannot parse a file (a syntax "
        "error, a missing header, a wrong flag), the facts from that file are incomplete and every "
        "other rule may miss bugs in it. The message is clang's own."
    ),
    instead=(
        "Give brickguard the project's real flags: a compile_commands.json ([build] "
        "compile_commands), or [build] include and defines. When stddef.h/stdint.h are missing, "
        "install libclang-common-14-dev (Debian) or pass [build] resource_dir."
    ),
    example_bad='#include "board_config.h"   /* not on the include path */',
    example_good=(
        '/* brickguard.toml: [build] include = ["Core/Inc"] */\n'
        '#include "board_config.h"'
    ),
    check=check,
)
