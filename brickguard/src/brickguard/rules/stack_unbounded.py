"""BG511: an entry whose stack depth has no bound: a recursion (the cycle is named), a call
through a pointer to which no function is known to be stored, or a dynamic frame (alloca, a
variable-length array), reported at the call or function that makes it so (stack.py)."""

from __future__ import annotations

from collections.abc import Iterable

from brickguard.config import Config
from brickguard.findings import Finding, Level
from brickguard.program import Program
from brickguard.rules.base import Rule
from brickguard.rules.messages import here


def check(program: Program, config: Config) -> Iterable[Finding]:
    seen: set = set()
    for e in program.stack.entries:
        for why, where in e.unbounded:
            if (why, where) in seen:
                continue
            seen.add((why, where))
            yield Finding(
                "BG511", RULE.level,
                f"the stack of {e.name} has no bound: {why}; its "
                f"{e.limit.bytes} bytes ({e.limit.what}) cannot be shown to be enough",
                here(where, why), related=(here(e.where, e.name),))


RULE = Rule(
    id="BG511",
    title="Stack depth without a bound (recursion, unknown pointer call, dynamic frame)",
    level=Level.warning,
    rationale=(
        "A recursion's depth depends on the data, and a call through a pointer may go "
        "anywhere: no size of stack can be shown to be enough, and MISRA C forbids recursion "
        "for that reason."
    ),
    instead=(
        "Replace the recursion with a loop and an explicit bounded stack; make the pointer's "
        "possible targets visible (assign the callbacks in the code brickguard checks)."
    ),
    example_bad=(
        "/* brickguard.toml: [stack] main_stack = 1024 */\n"
        "static unsigned fact(unsigned n) { return n < 2 ? 1 : n * fact(n - 1); }\n"
        "int main(void) { return (int)fact(5); }"
    ),
    example_good=(
        "/* brickguard.toml: [stack] main_stack = 1024 */\n"
        "static unsigned fact(unsigned n) { unsigned r = 1; while (n > 1) r *= n--; return r; }\n"
        "int main(void) { return (int)fact(5); }"
    ),
    check=check,
)
