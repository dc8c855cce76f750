"""Exclusive load/store (LDREX/STREX) sequences whose store result is not checked (BG106).

An exclusive store (CMSIS ``__STREXW(value, addr)``, ``__STREXH``, ``__STREXB``; the compiler
builtin ``__builtin_arm_strex``) stores only if the core's exclusive monitor still holds the
address its exclusive load (``__LDREXW(addr)``) marked, and returns 0 when it stored, 1 when it
did not. On M-profile cores exception entry and exit clear the local monitor (the Armv7-M
architecture; QEMU's v7M model, commit dc3c4c1: "For M profile we must clear the exclusive
monitor on reset, exception entry and exception exit"; the Cortex-M user guides' CLREX: "to
force the failure of the store exclusive if the exception occurs between a load exclusive ...
and the matching store exclusive"), so an interrupt between the load and the store makes the
store fail: the sequence is atomic only when a failed store is retried
(``do { v = __LDREXW(&x) + 1; } while (__STREXW(v, &x));``). A store whose result is thrown away
drops the update with no sign: the interrupt's write survives, the task's is lost.

A result saved in a variable is taken as checked (what is done with it is not followed).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from brickguard.facts import CallFact

if TYPE_CHECKING:
    from brickguard.program import Program

EXCLUSIVE_STORES = frozenset({"__STREXW", "__STREXH", "__STREXB", "__STREX", "__strex",
                              "__builtin_arm_strex", "__STLEX", "__STLEXH", "__STLEXB"})
EXCLUSIVE_LOADS = frozenset({"__LDREXW", "__LDREXH", "__LDREXB", "__LDREX", "__ldrex",
                             "__builtin_arm_ldrex", "__LDAEX", "__LDAEXH", "__LDAEXB"})


@dataclass(frozen=True)
class UncheckedStore:
    store: CallFact
    load: CallFact | None  # the exclusive load before it in the same function, if any
    target: str = ""  # the object the pair guards, as written (``g_requests``), when known


def store_target(program: Program, store: CallFact) -> str:
    """The global an exclusive store writes (its address argument, ``&g_requests``, or a
    pointer known to hold one), as ``name`` plus its path; "" when not known."""
    t = store.targets[1] if len(store.targets) > 1 else None
    obj = program.objects.get(t[0]) if t is not None and isinstance(t[0], str) else None
    return obj.name + "".join(t[1]) if obj is not None else ""


def unchecked_stores(program: Program) -> list[UncheckedStore]:
    """Every exclusive store whose result nothing uses, with the load it pairs with."""
    out = []
    for calls in program.calls_by_caller.values():
        loads = [c for c in calls if c.callee_name in EXCLUSIVE_LOADS]
        for c in calls:
            if c.discarded and c.callee_name in EXCLUSIVE_STORES:
                before = [ld for ld in loads if ld.seq < c.seq]
                out.append(UncheckedStore(c, max(before, key=lambda ld: ld.seq, default=None),
                                          store_target(program, c)))
    return sorted(out, key=lambda u: (u.store.where.file, u.store.where.line))
