"""BG110: a call that may block or allocate, reached from interrupt context through any depth.

The flow shown is the shortest call chain from an interrupt entry (``Program.isr_chains``, see
chains.py), from the handler with the first name when several are equally short.
"""

from __future__ import annotations

from collections.abc import Iterable

from brickguard.config import Config
from brickguard.findings import Finding, Level
from brickguard.program import Program
from brickguard.rules.base import Rule
from brickguard.rules.messages import chain_text, flow, here

WHY = {
    "blocks": "may block (it waits for time, a peripheral or another task)",
    "allocates": "allocates or frees heap memory (a lock, unbounded time)",
    "prints": "prints (slow, buffered I/O, usually under a lock)",
    "unsafe": "is marked as not interrupt-safe in brickguard.toml",
    "waits": "blocks unless its timeout says not to wait",
}


def _nowait(text: str, spellings: tuple[str, ...]) -> bool:
    t = text.replace(" ", "").strip("()")
    return t in spellings or t.rstrip("uUlL") in spellings


def check(program: Program, config: Config) -> Iterable[Finding]:
    plat = config.platform
    for c, chain in program.interrupt_calls:
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
            "BG110", RULE.level, message, here(c.where, f"{name}() called here"),
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
        'static void log_event(const char *s) { printf("%s\\n", s); HAL_Delay(10); }\n'
        'void EXTI0_IRQHandler(void) { log_event("button"); }'
    ),
    example_good=(
        "volatile uint32_t button_events;\n"
        "void EXTI0_IRQHandler(void) { button_events++; }\n"
        "/* main loop: if (button_events) { ... printf(...); } */"
    ),
    check=check,
)
