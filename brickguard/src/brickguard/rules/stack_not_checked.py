"""BG512: the stack depth was not checked, or only partly: no cross compiler, or gcc failed on
some files (whose functions then count 0). One note, at the entry it concerns."""

from __future__ import annotations

from collections.abc import Iterable

from brickguard.config import Config
from brickguard.findings import Finding, Level
from brickguard.program import Program
from brickguard.rules.base import Rule
from brickguard.rules.messages import here


def check(program: Program, config: Config) -> Iterable[Finding]:
    report = program.stack
    if not report.skipped:
        return
    mains = [f for f in program.functions.values() if f.name == "main"]
    where = report.entries[0].where if report.entries else (mains[0].where if mains else None)
    if where is None:
        where = next((c.where for c in program.hw_calls), None)
    if where is not None:
        yield Finding("BG512", RULE.level, report.skipped, here(where, "stack depth entry"))


RULE = Rule(
    id="BG512",
    title="Stack depth not checked (no cross compiler, or it failed on some files)",
    level=Level.note,
    rationale=(
        "Frame sizes are the compiler's: without arm-none-eabi-gcc (or where it cannot "
        "compile a file) brickguard cannot bound the stack, and says so instead of passing."
    ),
    instead=(
        "Install the cross compiler (apt-get install gcc-arm-none-eabi "
        "libnewlib-arm-none-eabi) or name it in [stack] gcc; fix what gcc reports."
    ),
    example_bad=(
        "/* brickguard.toml: [stack] main_stack = 1024, gcc = \"no-such-gcc\" */\n"
        "int main(void) { return 0; }"
    ),
    example_good=(
        "/* brickguard.toml: [stack] main_stack = 1024 */\n"
        "int main(void) { return 0; }"
    ),
    check=check,
)
