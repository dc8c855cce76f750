"""BG103: an object wider than the native word read in one context while another writes it."""

from __future__ import annotations

from collections.abc import Iterable

from brickguard.config import Config
from brickguard.findings import Finding, Level
from brickguard.program import Program
from brickguard.rules.base import Rule
from brickguard.rules.messages import at, does, isr_step, task_step, verb


def check(program: Program, config: Config) -> Iterable[Finding]:
    for r in program.races:
        if r.rule != "BG103":
            continue
        t, i = r.task.fact, r.isr.fact
        message = (
            f"`{t.text}` ({t.size} bytes) is {verb(t.kind)} in {r.victim}, wider than the "
            f"{config.word_bits}-bit word, while interrupt handler {r.isr.context_names(True)} "
            f"{does(i.kind)} it ({at(i.where)}): the access takes several "
            f"instructions and can tear"
        )
        isr, task = isr_step(r), task_step(r)
        yield Finding("BG103", RULE.level, message, task, related=(isr,), flow=(isr, task))


RULE = Rule(
    id="BG103",
    title="torn access: an object wider than the native word shared with an interrupt handler",
    level=Level.warning,
    rationale=(
        "On a 32-bit core a uint64_t tick counter, a struct copy or a memcpy of a buffer is "
        "several loads or stores. An interrupt between them leaves the reader with the low half "
        "of the new value and the high half of the old one: a timestamp that jumps back by 2^32, "
        "a message with mixed fields. `volatile` does not help."
    ),
    instead=(
        "Copy the object inside a critical section; or read it twice until both reads agree "
        "(for counters); or publish through a sequence counter or a double buffer whose index "
        "is one word."
    ),
    example_bad=(
        "volatile uint64_t ticks;\n"
        "void SysTick_Handler(void) { ticks++; }\n"
        "uint64_t now(void) { return ticks; }"
    ),
    example_good=(
        "volatile uint64_t ticks;\n"
        "void SysTick_Handler(void) { ticks++; }\n"
        "uint64_t now(void) { __disable_irq(); uint64_t t = ticks; __enable_irq(); return t; }"
    ),
    check=check,
)
