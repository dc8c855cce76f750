"""Which task-side access sites race with an interrupt handler: the judgement behind BG101-BG103.

Per object shared with an interrupt handler, each unprotected task-side access gets at most one
race, the most specific (BG102 > BG103 > BG101), so a bug is reported once per line.

A single aligned word-sized plain read of a scalar (the ``volatile`` flag that the ISR sets and
the main loop polls) is atomic on the target: BG101 leaves it alone, and so any word-sized update
when the handler only reads the object (it sees the old or the new value, both whole). A task
write to a scalar the handler also writes (the main loop resetting ``rx_index = 0``) is
reported: an update the handler made between the task's read and this write is lost. Whether
the object is ``volatile`` is BG104's question, asked once at the declaration.

``Program.races`` computes this once per program; the rules read it.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from brickguard.facts import AccessKind, ObjectFact

if TYPE_CHECKING:
    from brickguard.program import Access, Program

PRIORITY = {"BG102": 0, "BG103": 1, "BG101": 2}


@dataclass(frozen=True)
class Race:
    rule: str  # "BG101" | "BG102" | "BG103": the most specific rule for this site
    obj: ObjectFact
    task: Access  # the unprotected task-side access (where the finding is reported)
    isr: Access  # the interrupt-side access it races with


@dataclass(frozen=True)
class Shared:
    """An object an interrupt handler touches and task code touches too."""

    obj: ObjectFact
    accesses: list[Access]


def accesses_by_object(program: Program) -> dict[str, list[Access]]:
    out: dict[str, list[Access]] = defaultdict(list)
    for a in program.accesses:
        out[a.fact.obj].append(a)
    return out


def shared_objects(program: Program) -> list[Shared]:
    """Objects shared between interrupt and task context (const and _Atomic ones skipped)."""
    out = []
    for usr, accs in program.accesses_by_object.items():
        obj = program.objects.get(usr)
        if obj is None or obj.is_const or obj.is_atomic:
            continue
        if any(a.in_interrupt for a in accs) and any(a.in_task for a in accs):
            out.append(Shared(obj, accs))
    return out


def find_races(program: Program) -> list[Race]:
    """Every racing task-side access site, one race per site, in source order."""
    word = program.config.word_bits // 8
    best: dict[tuple, Race] = {}
    for shared in program.shared_objects:
        obj, accs = shared.obj, shared.accesses
        isr = sorted((a for a in accs if a.in_interrupt), key=source_order)
        isr_writes = [a for a in isr if a.fact.kind.writes]
        for a in accs:
            if not a.in_task or a.task_protected:
                continue
            f = a.fact
            rule, other = None, None
            if f.kind is AccessKind.rmw and isr_writes:
                rule, other = "BG102", isr_writes[0]
            elif f.size > word and (isr_writes if f.kind is AccessKind.read else isr):
                rule, other = "BG103", (isr_writes if f.kind is AccessKind.read else isr)[0]
            elif isr_writes or f.kind.writes:
                # One aligned word, read (or written while the handler only reads): atomic.
                atomic_kind = f.kind is AccessKind.read or not isr_writes
                single_word = obj.is_scalar and f.whole and f.size <= word and atomic_kind
                if not single_word:
                    rule, other = "BG101", (isr_writes or isr)[0]
            if rule is None or other is None:
                continue
            site = (obj.usr, f.where.file, f.where.line)
            race = Race(rule, obj, a, other)
            if site not in best or PRIORITY[rule] < PRIORITY[best[site].rule]:
                best[site] = race
    return sorted(best.values(), key=lambda r: source_order(r.task))


def source_order(a: Access) -> tuple[str, int, int]:
    w = a.fact.where
    return (w.file, w.line, w.column)
