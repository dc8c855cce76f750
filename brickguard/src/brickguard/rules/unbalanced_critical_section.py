"""BG105: a critical section not left on some path, or left without being entered."""

from __future__ import annotations

from collections.abc import Iterable

from brickguard.config import Config
from brickguard.findings import Finding, Level
from brickguard.program import Program
from brickguard.rules.base import Rule
from brickguard.rules.messages import here


def check(program: Program, config: Config) -> Iterable[Finding]:
    for s in sorted(program.section_issues, key=lambda s: (s.where.file, s.where.line)):
        w = s.where
        if s.kind == "unclosed" and s.leak is not None:
            message = (
                f"critical section opened by {s.call}() in {s.function_name}() is not closed "
                f"on the path that leaves at line {s.leak.line}: interrupts stay disabled"
            )
            leak = here(s.leak, "leaves still inside")
            opened = here(w, f"{s.call}() opens the section")
            # Anchored where the defect bites: the return (or end) that leaves still inside.
            yield Finding("BG105", RULE.level, message, leak, (opened,), (opened, leak))
        else:
            message = (
                f"{s.call}() in {s.function_name}() closes a critical section that is not open "
                f"on some path (closed twice, or never opened)"
            )
            yield Finding("BG105", RULE.level, message, here(w))


RULE = Rule(
    id="BG105",
    title="critical section not balanced: not left on some path, or left without being entered",
    level=Level.error,
    rationale=(
        "An early `return` or `goto` after __disable_irq() leaves interrupts off: the "
        "watchdog, UART and timers stop and the board hangs far from the bug. Closing a section "
        "twice, or one never opened, re-enables interrupts inside the caller's own critical "
        "section."
    ),
    instead=(
        "Give the function one exit after the section (set a result, `break` or `goto out`, "
        "and re-enable there), and save and restore PRIMASK (or use the RTOS's nesting "
        "critical sections) so that nested sections stay correct."
    ),
    example_bad=(
        "static volatile uint8_t buf[16], head, tail;\n"
        "int pop(uint8_t *out) { __disable_irq();\n"
        "  if (head == tail) return -1;   /* interrupts stay off */\n"
        "  *out = buf[tail++ & 15u]; __enable_irq(); return 0; }"
    ),
    example_good=(
        "static volatile uint8_t buf[16], head, tail;\n"
        "int pop(uint8_t *out) { int rc = -1; __disable_irq();\n"
        "  if (head != tail) { *out = buf[tail++ & 15u]; rc = 0; }\n"
        "  __enable_irq(); return rc; }"
    ),
    check=check,
)
