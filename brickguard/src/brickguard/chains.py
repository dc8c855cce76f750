"""Call chains from interrupt entries: how interrupt context reaches each function (BG110-BG112).

The chains are found breadth-first from every interrupt entry, so the chain kept for a function
is the shortest one (from the handler with the first name when several are equally short).
``Program.isr_chains`` and ``Program.interrupt_calls`` compute these once per program.
"""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass
from typing import TYPE_CHECKING

from brickguard.facts import CallFact

if TYPE_CHECKING:
    from brickguard.program import Context, Program


@dataclass(frozen=True)
class Chain:
    entry: str  # the interrupt entry function's USR
    context: Context
    edges: tuple[CallFact, ...]  # the calls from the entry down to the function reached

    def names(self) -> list[str]:
        return [self.context.name, *(e.callee_name for e in self.edges)]


def isr_chains(program: Program) -> dict[str, Chain]:
    """The shortest call chain from an interrupt entry to each function interrupts reach."""
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
    return chains


def interrupt_calls(program: Program) -> list[tuple[CallFact, Chain]]:
    """Every call made by a function that interrupts reach, with the chain to its caller.

    Where a watched macro is used, the call it expands to at the same place is skipped: the
    finding names what the code says (``xSemaphoreGive``), not ``xQueueGenericSend``.
    """
    chains = program.isr_chains
    macro_sites = {c.where for c in program.calls if c.callee.startswith("macro:")}
    out = []
    for c in program.calls:
        chain = chains.get(c.caller)
        if chain is None:
            continue
        if c.where in macro_sites and not c.callee.startswith("macro:"):
            continue
        out.append((c, chain))
    return out
