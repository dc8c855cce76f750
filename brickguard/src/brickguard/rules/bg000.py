"""BG000: the front end could not read a file the way the compiler would."""

from __future__ import annotations

from brickguard.findings import Level
from brickguard.rules.base import Rule, no_findings

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
    example_good='[build]\ninclude = ["Core/Inc"]     # brickguard.toml',
    check=no_findings,  # findings come from the front end, see analyze.py
)
