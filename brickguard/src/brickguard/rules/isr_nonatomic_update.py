"""BG102: a non-atomic read-modify-write in task code of an object an interrupt also writes."""

from __future__ import annotations

from collections.abc import Iterable

from brickguard.config import Config
from brickguard.facts import AccessKind
from brickguard.findings import Finding, Level
from brickguard.program import Program
from brickguard.rules.base import Rule
from brickguard.rules.messages import at, does, isr_step, task_step


def check(program: Program, config: Config) -> Iterable[Finding]:
    for r in program.races:
        if r.rule != "BG102":
            continue
        t, i = r.task.fact, r.isr.fact
        if t.kind is AccessKind.write and t.bits:
            location = t.path[-1][1:] if t.path else ""
            message = (
                f"`{t.text}` stores bit-field `{t.bits}`, which shares one memory location "
                f"(`{location}`: adjacent bit-fields, C11 6.7.2.1) with `{i.bits or i.text}`: the "
                f"store in {r.victim} loads the whole word, merges its bits and stores the word "
                f"back, so when interrupt handler {r.isr.context_names(True)} writes "
                f"`{i.text}` ({at(i.where)}) between the load and the store, its update is lost"
            )
        else:
            message = (
                f"`{t.text}` is a read-modify-write in {r.victim} "
                f"and not atomic: interrupt handler {r.isr.context_names(True)} also "
                f"{does(i.kind)} `{r.obj.name}` ({at(i.where)}), and its update is lost when it "
                f"fires between the load and the store"
            )
        isr, task = isr_step(r), task_step(r)
        yield Finding("BG102", RULE.level, message, task, related=(isr,), flow=(isr, task))


RULE = Rule(
    id="BG102",
    title="non-atomic read-modify-write of an object an interrupt handler also writes",
    level=Level.warning,
    rationale=(
        "`x++`, `x |= mask` and `x = x + 1` compile to load, modify, store. `volatile` does not "
        "make them atomic. If the interrupt writes `x` between the load and the store, the task "
        "stores a value computed from the old one and the interrupt's update is lost: a "
        "dropped event count, a cleared flag bit that comes back."
    ),
    instead=(
        "Wrap the update in a critical section, or use C11 atomics (atomic_fetch_add, "
        "atomic_fetch_or) or the core's exclusive load/store (LDREX/STREX), or restructure so "
        "that each variable is written by one side only."
    ),
    example_bad=(
        "volatile uint32_t events;\n"
        "void EXTI0_IRQHandler(void) { events |= 1u; }\n"
        "void poll(void) { events &= ~1u; }"
    ),
    example_good=(
        "volatile uint32_t events;\n"
        "void EXTI0_IRQHandler(void) { events |= 1u; }\n"
        "void poll(void) { uint32_t m = __get_PRIMASK(); __disable_irq();\n"
        "  events &= ~1u; __set_PRIMASK(m); }"
    ),
    check=check,
)
