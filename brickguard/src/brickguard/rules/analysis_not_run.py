"""BG002: an analysis did not run, or ran on part of the code. Never a silent pass.

The note says what did not run, why, and how to fix it. Its sources: the front end (a file
that misses a header was parsed on without it: the functions that then hold errors were seen
only as far as clang recovered; a plain syntax error is BG000's alone, which names it) and the
MISRA run (cppcheck missing, stopped by a ``#error`` or a syntax error, timed out). The notes
are reported whatever ``select`` says; ``--fail-on-skip`` (the default in CI) fails the run on
any of them.
"""

from __future__ import annotations

from collections.abc import Iterable

from brickguard.config import Config
from brickguard.findings import NOT_RUN, Finding, Level, Location
from brickguard.program import Program
from brickguard.rules.base import Rule
from brickguard.sdk.engine import SDK_RULES, misses_header

ID = NOT_RUN


def note(message: str, where: str, line: int = 1, column: int = 1) -> Finding:
    """A BG002 note: what did not run and why (the message says how to fix it too)."""
    return Finding(ID, Level.note, message, Location(where, line, column))


def check(program: Program, config: Config) -> Iterable[Finding]:
    sdk = bool(config.sdks) and any(config.rule_enabled(r) for r in SDK_RULES)
    for unit in program.units:
        if not misses_header(unit):
            continue
        parts = []
        if unit.incomplete:
            n = len(unit.incomplete)
            names = ", ".join(f"{name}()" for name, _ in unit.incomplete[:8])
            names += " ..." if n > 8 else ""
            parts.append(
                f"{n} function{'s' if n != 1 else ''} ({names}) {'hold' if n != 1 else 'holds'} "
                f"parse errors and {'were' if n != 1 else 'was'} analysed only as far as clang "
                "recovered")
        if sdk:
            parts.append("the SDK checks (BG201-BG205) did not run on it: the missing header may "
                         "declare any name it uses")
        if parts:
            yield note(
                f"rules ran on part of this file: {'; '.join(parts)}; add the missing header's "
                "folder to [build] include (see BG000) for a full check",
                unit.file, unit.incomplete[0][1] if unit.incomplete else 1,
            )


RULE = Rule(
    id=ID,
    title="an analysis did not run or ran partially",
    level=Level.note,
    rationale=(
        "A gate that skips a check and reports no findings looks exactly like a clean pass. "
        "brickguard reports every analysis that did not run, or saw only part of the code, with "
        "the reason and the fix, so 'no findings' always means 'checked and clean'."
    ),
    instead=(
        "Fix the cause the note names (install cppcheck, add the missing include folder, pass "
        "the compiler's macros). In CI, `--fail-on-skip` (on by default when CI is set) turns "
        "any of these notes into a failing run."
    ),
    example_bad=(
        '#include "board_missing.h"   /* not found: led_task() is parsed only in part */\n'
        "void led_task(void) { board_led_on(BOARD_LED_GREEN); }"
    ),
    example_good=(
        "void board_led_on(int led);   /* what board.h declares, now found */\n"
        "#define BOARD_LED_GREEN 1\n"
        "void led_task(void) { board_led_on(BOARD_LED_GREEN); }"
    ),
    check=check,
)
