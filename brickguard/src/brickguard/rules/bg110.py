"""BG110: a call that may block or allocate, reached from interrupt context through any depth.

The call chain is found breadth-first from every interrupt entry, so the flow shown is the
shortest one (from the handler with the first name when several are equally short). BG111 and
BG112 share ``isr_chains`` and ``calls_in_interrupt``.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from brickguard.config import Config
from brickguard.facts import CallFact, Where
from brickguard.findings import Finding, Level, Location
from brickguard.program import Context, Program
from brickguard.rules.base import Rule

WHY = {
    "blocks": "may block (it waits for time, a peripheral or another task)",
    "allocates": "allocates or frees heap memory (a lock, unbounded time)",
    "prints": "prints (slow, buffered I/O, usually under a lock)",
    "unsafe": "is marked as not interrupt-safe in brickguard.toml",
    "waits": "blocks unless its timeout says not to wait",
}


@dataclass(frozen=True)
class Chain:
    entry: str  # the interrupt entry function's USR
    context: Context
    edges: tuple[CallFact, ...]  # the calls from the entry down to the function reached

    def names(self) -> list[str]:
        return [self.context.name, *(e.callee_name for e in self.edges)]


def isr_chains(program: Program) -> dict[str, Chain]:
    """The shortest call chain from an interrupt entry to each function interrupts reach."""
    cached = program.cache.get("isr_chains")
    if cached is not None:
        return cached  # type: ignore[return-value]
    callees: dict[str, list[CallFact]] = defaultdict(list)
    for c in sorted(program.calls, key=lambda c: (c.where.file, c.where.line, c.where.column)):
        callees[c.caller].append(c)
    chains: dict[str, Chain] = {}
    todo: deque[str] = deque()
    for usr, ctx in sorted(program.entries.items(), key=lambda kv: kv[1].name):
        if ctx.is_interrupt and usr not in chains:
            chains[usr] = Chain(usr, ctx, ())
            todo.append(usr)
    while todo:
        f = todo.popleft()
        for c in callees.get(f, ()):
            if c.callee not in chains:
                base = chains[f]
                chains[c.callee] = Chain(base.entry, base.context, (*base.edges, c))
                todo.append(c.callee)
    program.cache["isr_chains"] = chains
    return chains


def calls_in_interrupt(program: Program) -> Iterator[tuple[CallFact, Chain]]:
    """Every call made by a function that interrupts reach, with the chain to its caller.

    Where a watched macro is used, the call it expands to at the same place is skipped: the
    finding names what the code says (``xSemaphoreGive``), not ``xQueueGenericSend``.
    """
    chains = isr_chains(program)
    macro_sites = {c.where for c in program.calls if c.callee.startswith("macro:")}
    for c in program.calls:
        chain = chains.get(c.caller)
        if chain is None:
            continue
        if c.where in macro_sites and not c.callee.startswith("macro:"):
            continue
        yield c, chain


def flow(program: Program, chain: Chain, last: CallFact, what: str) -> tuple[Location, ...]:
    """Steps from the handler's definition through each call down to ``last``."""
    entry = program.functions.get(chain.entry)
    steps = []
    if entry is not None:
        w = entry.where
        steps.append(Location(w.file, w.line, w.column, f"{chain.context.name}: interrupt "
                                                         f"entry ({chain.context.how})"))
    for e in chain.edges:
        steps.append(_at(e.where, f"calls {e.callee_name}()"))
    steps.append(_at(last.where, what))
    return tuple(steps)


def chain_text(chain: Chain, last: str | None = None) -> str:
    """'TIM2_IRQHandler -> log_event -> printf()': the chain, shortened when long."""
    names = chain.names() + ([last] if last else [])
    if len(names) > 7:
        names = [*names[:3], "...", *names[-3:]]
    return " -> ".join(names)


def _at(w: Where, message: str) -> Location:
    return Location(w.file, w.line, w.column, message)


def _nowait(text: str, spellings: tuple[str, ...]) -> bool:
    t = text.replace(" ", "").strip("()")
    return t in spellings or t.rstrip("uUlL") in spellings


def check(program: Program, config: Config) -> Iterable[Finding]:
    plat = config.platform
    for c, chain in calls_in_interrupt(program):
        name = c.callee_name
        if name in plat.isr_variants:
            continue  # BG111 names the interrupt-safe twin
        why = None
        if name in plat.waits:
            wait = plat.waits[name]
            arg = c.args[wait.arg] if 0 <= wait.arg < len(c.args) else None
            if arg is None or not _nowait(arg.text, wait.nowait):
                shown = arg.text if arg is not None else "?"
                why = f"{WHY['waits']} (timeout `{shown}`; use {' or '.join(wait.nowait)})"
        elif name in plat.blocking and name not in plat.interrupt_safe:
            why = WHY[plat.blocking[name]]
        if why is None:
            continue
        message = (
            f"{name}() {why}, and runs in interrupt context: "
            f"{chain_text(chain, name + '()')}"
        )
        yield Finding(
            "BG110", RULE.level, message, _at(c.where, f"{name}() called here"),
            flow=flow(program, chain, c, f"{name}() {why.split(' (')[0]}"),
        )


RULE = Rule(
    id="BG110",
    title="call that may block or allocate is reached from interrupt context",
    level=Level.error,
    rationale=(
        "An interrupt handler must finish in bounded time and can never wait: there is no task "
        "to switch to while it runs. A delay (HAL_Delay, vTaskDelay, k_sleep, msleep) spins on "
        "a tick that cannot advance or asks the scheduler to sleep; malloc/free take the heap "
        "lock the interrupted task may hold; printf goes through buffered, locked I/O. The "
        "board deadlocks, asserts, or misses deadlines, often only under load and often in a "
        "helper several calls below the handler."
    ),
    instead=(
        "Keep the handler short: record the event (a flag, a ring-buffer entry, an ISR-safe "
        "queue send or semaphore give) and do the slow work in a task or the main loop. Use "
        "the RTOS calls documented as interrupt-safe, with a zero timeout (K_NO_WAIT, 0) where "
        "the API takes one. Allocate buffers statically or from a pool at start-up."
    ),
    example_bad=(
        "void EXTI0_IRQHandler(void) { log_event(\"button\"); }\n"
        "static void log_event(const char *s) { printf(\"%s\\n\", s); HAL_Delay(10); }"
    ),
    example_good=(
        "volatile uint32_t button_events;\n"
        "void EXTI0_IRQHandler(void) { button_events++; }\n"
        "/* main loop: if (button_events) { ... printf(...); } */"
    ),
    check=check,
)
