"""BG003: brickguard filled a gap in the set-up with its own choice; the note says which.

A file that the compile database does not list is parsed with the ``[build]`` flags instead
(the database's flags for it are unknown). The results are real but rest on that choice. (A
machine with no C library for the target gets libclang's freestanding headers only: a file that
then misses ``string.h`` has a BG000 whose hint says what to install.)
"""

from __future__ import annotations

from collections.abc import Iterable

from brickguard.config import Config
from brickguard.findings import FALLBACK, Finding, Level, Location
from brickguard.program import Program
from brickguard.rules.base import Rule

ID = FALLBACK


def check(program: Program, config: Config) -> Iterable[Finding]:
    database = config.compile_commands
    for unit in program.units:
        if unit.fallback_flags:
            yield Finding(
                ID, Level.note,
                f"not in {database}: parsed with the [build] include/defines/flags instead; "
                "regenerate the compile database (or add the file to it) for its real flags",
                Location(unit.file, 1, 1),
            )


RULE = Rule(
    id=ID,
    title="a set-up gap filled by brickguard's own choice",
    level=Level.note,
    rationale=(
        "When the build set-up leaves a gap (a file missing from compile_commands.json), "
        "brickguard goes on with a stated fallback instead of failing the file; the note says "
        "which fallback, so a reviewer can judge the result."
    ),
    instead="Close the gap the note names: regenerate the compile database.",
    example_bad="/* compile_commands.json lists main.c but not new_driver.c */",
    example_good="/* regenerate: bear -- make, or cmake -DCMAKE_EXPORT_COMPILE_COMMANDS=ON */",
    check=check,
)
