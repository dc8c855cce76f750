"""BG510: an entry's worst-case stack is larger than the stack it is given (stack.py): the main
stack (main plus the interrupt nesting its priorities allow) against the linker script's size,
a task against the depth given to xTaskCreate."""

from __future__ import annotations

from collections.abc import Iterable

from brickguard.config import Config
from brickguard.findings import Finding, Level
from brickguard.program import Program
from brickguard.rules.base import Rule
from brickguard.rules.messages import here


def check(program: Program, config: Config) -> Iterable[Finding]:
    for e in program.stack.entries:
        if e.need <= e.limit.bytes:
            continue
        unknown = (f"; not counted (no definition): {', '.join(sorted(e.unknown)[:5])}"
                   if e.unknown else "")
        related = (here(e.limit.where, f"{e.limit.what}: {e.limit.bytes} bytes"),) if (
            e.limit.where is not None and e.limit.where != e.where) else ()
        yield Finding(
            "BG510", RULE.level,
            f"{e.name} needs up to {e.need} bytes but has {e.limit.bytes} ({e.limit.what}): "
            f"{' + '.join(e.parts)}{unknown}",
            here(e.where, f"{e.name}: {e.need} bytes worst case"), related=related)


RULE = Rule(
    id="BG510",
    title="Worst-case stack larger than the stack given",
    level=Level.error,
    rationale=(
        "A Cortex-M has no stack guard by default: an overflow silently overwrites the heap or "
        "globals below the stack, and the fault (if one comes) is far from the cause. The "
        "worst case is the deepest call chain plus every interrupt that can nest on top."
    ),
    instead=(
        "Give the stack what the worst case needs (the linker script's _Min_Stack_Size, the "
        "task's depth in words), or move large locals off the stack."
    ),
    example_bad=(
        "/* brickguard.toml: [stack] main_stack = 256 */\n"
        "static int sum(const volatile int *p) { int s = 0; for (int i = 0; i < 64; i++) "
        "s += p[i]; return s; }\n"
        "int main(void) { volatile int buf[128]; buf[0] = 1; return sum(buf); }"
    ),
    example_good=(
        "/* brickguard.toml: [stack] main_stack = 1024 */\n"
        "static int sum(const volatile int *p) { int s = 0; for (int i = 0; i < 64; i++) "
        "s += p[i]; return s; }\n"
        "int main(void) { volatile int buf[128]; buf[0] = 1; return sum(buf); }"
    ),
    check=check,
)
