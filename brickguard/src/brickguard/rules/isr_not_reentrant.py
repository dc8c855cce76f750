"""BG112: a function that runs in both interrupt and task context but is not reentrant.

Not reentrant here means: it changes a block-scope ``static`` (not const, not _Atomic), or it
calls a library function that keeps hidden state (``strtok``, ``rand``, ``asctime``... the
profiles' ``nonreentrant`` tables). A use inside a critical section is fine: while it runs the
interrupt cannot enter a second time. One finding per function, at its first unguarded use.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from brickguard.config import Config
from brickguard.findings import Finding, Level, Location
from brickguard.program import Program
from brickguard.rules.base import Rule
from brickguard.rules.messages import chain_text, here


def check(program: Program, config: Config) -> Iterable[Finding]:
    chains = program.isr_chains
    written = {a.fact.obj for a in program.accesses if a.fact.kind.writes}
    sites: dict[str, list[tuple[tuple[int, int], Location, str]]] = defaultdict(list)
    for a in program.accesses:
        f = a.fact
        obj = program.objects.get(f.obj)
        if obj is None or obj.in_function != f.function or f.protected:
            continue
        if obj.is_const or obj.is_atomic or f.obj not in written:
            continue
        w = f.where
        what = f"static local `{obj.name}`"
        sites[f.function].append(((w.line, w.column), here(w), what))
    nonreentrant = config.platform.nonreentrant
    for c in program.calls:
        if c.callee_name in nonreentrant and not c.protected:
            w = c.where
            twin = nonreentrant[c.callee_name]
            what = f"{c.callee_name}()" + (f" (use {twin}())" if twin else "")
            sites[c.caller].append(((w.line, w.column), here(w), what))
    for func, uses in sorted(sites.items(), key=lambda kv: min(u[0] for u in kv[1])):
        ctxs = program.contexts.get(func, frozenset())
        tasks = sorted(c.name for c in ctxs if not c.is_interrupt)
        chain = chains.get(func)
        if chain is None or not tasks:
            continue
        uses.sort(key=lambda u: u[0])
        name = program.functions[func].name if func in program.functions else "?"
        whats = ", ".join(dict.fromkeys(u[2] for u in uses))
        message = (
            f"{name}() runs in interrupt context ({chain_text(chain)}) and in task "
            f"context ({', '.join(tasks[:3])}) but is not reentrant: it uses {whats} outside "
            f"a critical section; an interrupt that calls it again midway corrupts that state"
        )
        first = uses[0][1]
        related = tuple(u[1] for u in uses[1:])
        yield Finding("BG112", RULE.level, message, first, related=related)


RULE = Rule(
    id="BG112",
    title="function called from both interrupt and task context is not reentrant",
    level=Level.warning,
    rationale=(
        "When a task is inside a function and an interrupt calls the same function, the "
        "second call runs on top of the first. Any state kept between calls (a static local, "
        "strtok's saved position, rand's seed, asctime's result buffer) is overwritten under "
        "the task's feet: a formatted string changes half-way, a parser skips a token."
    ),
    instead=(
        "Pass the state in (a context struct, strtok_r's save pointer, rand_r's seed), keep "
        "it on the stack, or give each context its own copy. If the state must be shared, "
        "make the whole body a critical section, or do not call the function from the "
        "interrupt: post the event and handle it in the task."
    ),
    example_bad=(
        "extern uint32_t ticks, count;\n"
        "const char *fmt_u32(uint32_t v) { static char buf[11]; buf[0] = (char)('0' + v % 10u);\n"
        "  /* ... */ return buf; }\n"
        "void TIM2_IRQHandler(void) { log_line(fmt_u32(ticks)); }\n"
        "int main(void) { for (;;) log_line(fmt_u32(count)); }"
    ),
    example_good=(
        "extern uint32_t ticks, count;\n"
        "char *fmt_u32(uint32_t v, char buf[11]) { buf[0] = (char)('0' + v % 10u);\n"
        "  /* ... */ return buf; }\n"
        "void TIM2_IRQHandler(void) { char b[11]; log_line(fmt_u32(ticks, b)); }\n"
        "int main(void) { char b[11]; for (;;) log_line(fmt_u32(count, b)); }"
    ),
    check=check,
)
