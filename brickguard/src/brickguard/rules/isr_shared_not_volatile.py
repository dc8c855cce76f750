"""BG104: an object shared with an interrupt handler is not ``volatile``, and task code polls it in
a loop where nothing makes the compiler load it again.

What it claims: the compiler may load the object once before the loop and spin on (or test) a
register copy, never seeing the handler's store. That takes a read on every turn of a loop (its
condition, or an ``if`` in its body) and no call anywhere in the loop: a call to a function
whose body the compiler cannot see, or an intrinsic with a memory clobber (``__DMB``, the
critical-section ones), makes it load every global again. Elsewhere a missing ``volatile``
does not lose the handler's update (a read between calls, a read-modify-write once per call:
BG101-BG103 judge their atomicity), so BG104 does not report it."""

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
        # Only a poll in a loop that calls nothing can stay a register copy (see above).
        task = sorted((a for a in accs if a.in_task and not a.task_protected
                       and not a.before_start and a.fact.kind.reads and a.fact.hoistable
                       and not a.fact.is_volatile), key=_order)
        hits = [(i, t) for t in task for i in isr
                if paths_overlap(i.fact.path, t.fact.path) and can_fire(program.gates, i, t)]
        if not hits:
            continue
        # Anchored where the defect bites: the first read that may spin on a register copy;
        # the declaration is related.
        i, t = hits[0]
        message = (
            f"`{obj.name}` is shared with interrupt handler {i.context_names(True)} but is not "
            f"volatile, and the loop in {t.context_names(False)} that reads it on every turn "
            f"calls nothing: the compiler may load it once before the loop and spin on a "
            f"register copy, never seeing the handler's update"
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
