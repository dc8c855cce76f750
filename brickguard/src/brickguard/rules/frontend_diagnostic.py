"""BG000: the front end could not read a file the way the compiler would.

The findings are clang's own errors, one per diagnostic (a header's, once), with the front
end's hint when the set-up causes it. A diagnostic an enabled SDK rule (BG201-BG205) explains
is left to that rule; warnings are kept only for the SDK rules and never reported here.
"""

from __future__ import annotations

from collections.abc import Iterable

from brickguard.config import Config
from brickguard.findings import Finding, Level
from brickguard.program import Program
from brickguard.rules.base import Rule
from brickguard.rules.messages import here


def check(program: Program, config: Config) -> Iterable[Finding]:
    claimed = program.claimed_diagnostics
    for unit in program.units:
        for d in unit.diagnostics:
            if d.severity == "warning" or d in claimed:
                continue
            message = f"clang {d.severity}: {d.message}" + (f" ({d.hint})" if d.hint else "")
            yield Finding("BG000", RULE.level, message, here(d.where, d.message))


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
