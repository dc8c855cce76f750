"""BG106: an exclusive store (__STREXW) whose result is not checked: a lost update."""

from __future__ import annotations

from collections.abc import Iterable

from brickguard.config import Config
from brickguard.exclusive import unchecked_stores
from brickguard.findings import Finding, Level
from brickguard.program import Program
from brickguard.rules.base import Rule
from brickguard.rules.messages import at, here


def check(program: Program, config: Config) -> Iterable[Finding]:
    for u in unchecked_stores(program):
        s = u.store
        load = f"`{u.load.callee_name}` ({at(u.load.where)})" if u.load else "the exclusive load"
        what = f"the update of `{u.target}`" if u.target else "the update"
        message = (
            f"the result of `{s.callee_name}` is not checked: an interrupt between {load} and "
            f"this store clears the exclusive monitor (exception entry and return do), the store "
            f"then does not happen and returns 1, and nothing retries it: {what} is lost "
            f"with no sign"
        )
        where = here(s.where, f"{s.callee_name}: result thrown away")
        related = (here(u.load.where, f"{u.load.callee_name}: the exclusive load"),) if u.load \
            else ()
        yield Finding("BG106", RULE.level, message, where, related=related,
                      flow=(*related, where))


RULE = Rule(
    id="BG106",
    title="exclusive store (STREX) whose result is not checked",
    level=Level.warning,
    rationale=(
        "LDREX/STREX make a read-modify-write atomic only together with a retry: STREX stores "
        "only if nothing cleared the exclusive monitor since LDREX, and an interrupt does (the "
        "core clears it on exception entry and return). It returns 1 when it did not store. "
        "Thrown away, that result hides a lost update: the counter misses an increment, the "
        "flag bit is not set, only when an interrupt comes at the wrong instruction."
    ),
    instead=(
        "Retry until the store succeeds: `do { v = __LDREXW(&x) + 1; } while (__STREXW(v, &x));`, "
        "or use C11 atomics (atomic_fetch_add), which the compiler turns into such a loop."
    ),
    example_bad=(
        "volatile uint32_t events;\n"
        "uint32_t __LDREXW(volatile uint32_t *addr);\n"
        "uint32_t __STREXW(uint32_t value, volatile uint32_t *addr);\n"
        "void TIM2_IRQHandler(void) { events++; }\n"
        "void count(void) { uint32_t v = __LDREXW(&events);\n"
        "  __STREXW(v + 1u, &events); }"
    ),
    example_good=(
        "volatile uint32_t events;\n"
        "uint32_t __LDREXW(volatile uint32_t *addr);\n"
        "uint32_t __STREXW(uint32_t value, volatile uint32_t *addr);\n"
        "void TIM2_IRQHandler(void) { events++; }\n"
        "void count(void) { uint32_t v;\n"
        "  do { v = __LDREXW(&events) + 1u; } while (__STREXW(v, &events)); }"
    ),
    check=check,
)
