"""Wording and locations shared by several rules' findings (not a rule: no ``RULE`` here)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from brickguard.facts import AccessKind, CallFact, Where
from brickguard.findings import Location

if TYPE_CHECKING:
    from brickguard.chains import Chain
    from brickguard.program import Access, Program
    from brickguard.races import Race

_VERB = {AccessKind.read: "read", AccessKind.write: "written",
         AccessKind.rmw: "modified (read-modify-write)"}
_DOES = {AccessKind.read: "reads", AccessKind.write: "writes", AccessKind.rmw: "updates"}


def verb(kind: AccessKind) -> str:
    """'read', 'written', 'modified (read-modify-write)'."""
    return _VERB[kind]


def does(kind: AccessKind) -> str:
    """'reads', 'writes', 'updates'."""
    return _DOES[kind]


def at(where: Where) -> str:
    """``file.c:LINE`` for a message; the finding's related location carries the full path."""
    return f"{os.path.basename(where.file)}:{where.line}"


def here(where: Where, message: str = "") -> Location:
    return Location(where.file, where.line, where.column, message)


def loc(a: Access, message: str) -> Location:
    return here(a.fact.where, message)


def isr_step(r: Race) -> Location:
    # A callback only a call's keeping of it makes a handler (``callbacks.unnamed_entries``):
    # the step says which call runs it, and what its unknown priority permits.
    run_by = sorted(f"; {c.name} is {c.how}" for c in r.isr.contexts
                    if c.is_interrupt and c.how.startswith("run by "))
    return loc(r.isr, f"{verb(r.isr.fact.kind)} in {r.isr.context_names(True)} (interrupt)"
               + "".join(run_by[:1]))


def task_step(r: Race) -> Location:
    return loc(r.task, f"{verb(r.task.fact.kind)} in {r.victim}, no critical section")


def flow(program: Program, chain: Chain, last: CallFact, what: str) -> tuple[Location, ...]:
    """Steps from the handler's definition through each call down to ``last``."""
    entry = program.functions.get(chain.entry)
    steps = []
    if entry is not None:
        ctx = chain.context
        steps.append(here(entry.where, f"{ctx.name}: interrupt entry ({ctx.how})"))
    for e in chain.edges:
        steps.append(here(e.where, f"calls {e.callee_name}()"))
    steps.append(here(last.where, what))
    return tuple(steps)


def chain_text(chain: Chain, last: str | None = None) -> str:
    """'TIM2_IRQHandler -> log_event -> printf()': the chain, shortened when long."""
    names = chain.names() + ([last] if last else [])
    if len(names) > 7:
        names = [*names[:3], "...", *names[-3:]]
    return " -> ".join(names)
