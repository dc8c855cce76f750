"""Shared judgement for BG101-BG104: which task-side access sites race with an interrupt.

Per object shared with an interrupt handler, each unprotected task-side access gets at most one
finding, the most specific (BG102 > BG103 > BG101), so a bug is reported once per line.

A single aligned word-sized plain read of a scalar (the ``volatile`` flag that the ISR sets and
the main loop polls) is atomic on the target: BG101 leaves it alone, and so any word-sized update
when the handler only reads the object (it sees the old or the new value, both whole). A task
write to a scalar the handler also writes (the main loop resetting ``rx_index = 0``) is
reported: an update the handler made between the task's read and this write is lost. Whether
the object is ``volatile`` is BG104's question, asked once at the declaration.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from brickguard.config import Config
from brickguard.facts import ObjectFact
from brickguard.findings import Location
from brickguard.program import Access, Program

PRIORITY = {"BG102": 0, "BG103": 1, "BG101": 2}


@dataclass(frozen=True)
class Race:
    rule: str
    obj: ObjectFact
    task: Access  # the unprotected task-side access (where the finding is reported)
    isr: Access  # the interrupt-side access it races with


def shared_objects(program: Program) -> list[tuple[ObjectFact, list[Access]]]:
    """Objects an interrupt handler touches and task code touches too (const/_Atomic skipped)."""
    out = []
    for usr, accs in program.accesses_by_object().items():
        obj = program.objects.get(usr)
        if obj is None or obj.is_const or obj.is_atomic:
            continue
        if any(a.in_interrupt for a in accs) and any(a.in_task for a in accs):
            out.append((obj, accs))
    return out


def races(program: Program, config: Config) -> list[Race]:
    key = f"races/{config.word_bits}"
    if key in program.cache:
        return program.cache[key]  # type: ignore[return-value]
    word = config.word_bits // 8
    best: dict[tuple, Race] = {}
    for obj, accs in shared_objects(program):
        isr = sorted((a for a in accs if a.in_interrupt), key=_order)
        isr_writes = [a for a in isr if a.fact.kind != "read"]
        for a in accs:
            if not a.in_task or a.task_protected:
                continue
            f = a.fact
            rule, other = None, None
            if f.kind == "rmw" and isr_writes:
                rule, other = "BG102", isr_writes[0]
            elif f.size > word and (isr_writes if f.kind == "read" else isr):
                rule, other = "BG103", (isr_writes if f.kind == "read" else isr)[0]
            elif isr_writes or f.kind != "read":
                # One aligned word, read (or written while the handler only reads): atomic.
                atomic_kind = f.kind == "read" or not isr_writes
                single_word = obj.is_scalar and f.whole and f.size <= word and atomic_kind
                if not single_word:
                    rule, other = "BG101", (isr_writes or isr)[0]
            if rule is None or other is None:
                continue
            site = (obj.usr, f.where.file, f.where.line)
            race = Race(rule, obj, a, other)
            if site not in best or PRIORITY[rule] < PRIORITY[best[site].rule]:
                best[site] = race
    result = sorted(best.values(), key=lambda r: _order(r.task))
    program.cache[key] = result
    return result


def _order(a: Access) -> tuple:
    w = a.fact.where
    return (w.file, w.line, w.column)


def verb(kind: str) -> str:
    return {"read": "read", "write": "written", "rmw": "modified (read-modify-write)"}[kind]


def does(kind: str) -> str:
    return {"read": "reads", "write": "writes", "rmw": "updates"}[kind]


def at(where) -> str:
    """``file.c:LINE`` for a message; the finding's related location carries the full path."""
    return f"{os.path.basename(where.file)}:{where.line}"


def loc(a: Access, message: str) -> Location:
    w = a.fact.where
    return Location(w.file, w.line, w.column, message)


def isr_step(r: Race) -> Location:
    return loc(r.isr, f"{verb(r.isr.fact.kind)} in {r.isr.context_names(True)} (interrupt)")


def task_step(r: Race) -> Location:
    where = r.task.context_names(False) or "task"
    return loc(r.task, f"{verb(r.task.fact.kind)} in {where} (task), no critical section")
