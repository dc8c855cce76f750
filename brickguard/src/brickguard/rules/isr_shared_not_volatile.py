"""BG104: an object shared with an interrupt handler is not ``volatile``."""

from __future__ import annotations

from collections.abc import Iterable

from brickguard.config import Config
from brickguard.facts import paths_overlap
from brickguard.findings import Finding, Level
from brickguard.program import Access, Program
from brickguard.races import can_fire
from brickguard.rules.base import Rule
from brickguard.rules.messages import here, loc, verb


def check(program: Program, config: Config) -> Iterable[Finding]:
    for shared in program.shared_objects:
        obj, accs = shared.obj, shared.accesses
        if obj.is_volatile:
            continue
        isr = sorted((a for a in accs if a.in_interrupt and a.fact.kind.writes), key=_order)
        # Every task access is in a critical section: its barrier re-reads memory. And only
        # what a handler writes can change under the task's feet: a part the handler only reads
        # is always what the task last wrote (the handler loads it afresh on every entry).
        # A task that only stores caches nothing: only its reads can miss the handler's update.
        task = sorted((a for a in accs if a.in_task and not a.task_protected
                       and not a.before_start and a.fact.kind.reads
                       and not a.fact.is_volatile), key=_order)
        hits = [(i, t) for t in task for i in isr
                if paths_overlap(i.fact.path, t.fact.path) and can_fire(program.gates, i, t)]
        if not hits:
            continue
        # Anchored where the defect bites: the read that may spin on a register copy (a loop's
        # condition) if there is one, else the first read; the declaration is related.
        i, t = next((h for h in hits if h[1].fact.in_loop_cond), hits[0])
        message = (
            f"`{obj.name}` is shared with interrupt handler {i.context_names(True)} but is not "
            f"volatile: the compiler may keep it in a register in {t.context_names(False)} and "
            f"never see the handler's update"
        )
        if t.fact.path:
            message += f" (of `{t.fact.text}`)"
        related = (
            here(obj.where, f"`{obj.name}` declared here, without volatile"),
            loc(i, f"{verb(i.fact.kind)} in {i.context_names(True)} (interrupt)"),
        )
        task_loc = loc(t, f"{verb(t.fact.kind)} in {t.context_names(False)} (task), "
                          "may be a stale register copy")
        yield Finding("BG104", RULE.level, message, task_loc, related, (related[1], task_loc))


def _order(a: Access) -> tuple[int, int]:
    return (a.fact.where.line, a.fact.where.column)


RULE = Rule(
    id="BG104",
    title="object shared with an interrupt handler is not volatile",
    level=Level.warning,
    rationale=(
        "The compiler assumes nothing else changes a plain variable while a function runs: it "
        "may load it once before a polling loop and spin forever, or drop a store it thinks is "
        "dead. An interrupt handler is exactly such an 'else'. The bug appears when the "
        "optimisation level changes."
    ),
    instead=(
        "Declare the object `volatile` (for a buffer: `volatile uint8_t buf[N]`), or access it "
        "only inside critical sections, whose intrinsics are compiler memory barriers. "
        "`volatile` alone is not atomicity: see BG101-BG103."
    ),
    example_bad=(
        "uint8_t data_ready;\n"
        "void uart_start(void);  /* enables the USART interrupt */\n"
        "void USART1_IRQHandler(void) { data_ready = 1; }\n"
        "int main(void) { uart_start(); while (!data_ready) { } }"
    ),
    example_good=(
        "volatile uint8_t data_ready;\n"
        "void uart_start(void);  /* enables the USART interrupt */\n"
        "void USART1_IRQHandler(void) { data_ready = 1; }\n"
        "int main(void) { uart_start(); while (!data_ready) { } }"
    ),
    check=check,
)
