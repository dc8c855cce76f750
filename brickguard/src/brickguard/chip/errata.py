"""Silicon errata (``data/errata/stm32f4.toml``): each with the workaround ST's HAL applies and
the errata sheet; BG320 checks the ones a register-level driver bypasses.

A checked erratum is a register write (block, register, and the bit's macro name, whose first
group is the peripheral it affects) after which, in the same function and before a read of
the same register (of the ``readback`` block) or a ``barriers`` call, the affected peripheral
must not be accessed. Order is source order within the function (branches are not told apart).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from brickguard.facts import RegisterAccess, Where

if TYPE_CHECKING:
    from brickguard.program import Program

ERRATA_FILE = Path(__file__).resolve().parents[1] / "data" / "errata" / "stm32f4.toml"


@dataclass(frozen=True)
class Erratum:
    id: str
    title: str
    parts: list[str]
    description: str
    workaround: str
    hal: str
    checked: bool
    sheets: dict[str, str] = field(default_factory=dict)
    block: str = ""
    register: str = ""
    bit: str = ""
    affects: list[str] = field(default_factory=list)
    readback: str = ""
    barriers: list[str] = field(default_factory=list)

    def sheet(self, part: str | None) -> str:
        up = (part or "").upper()
        return next((s for prefix, s in self.sheets.items() if up.startswith(prefix)), "")


@lru_cache(maxsize=1)
def errata() -> list[Erratum]:
    data = tomllib.loads(ERRATA_FILE.read_text(encoding="utf-8"))
    return [Erratum(**e) for e in data["erratum"]]


@dataclass(frozen=True)
class Violation:
    erratum: Erratum
    enable: RegisterAccess  # the write the erratum is about
    access: RegisterAccess  # the access that comes too soon
    peripheral: str


def _key(w: Where) -> tuple[str, int, int]:
    return (w.file, w.line, w.column)


def violations(program: Program, part: str | None) -> list[Violation]:
    up = (part or "STM32F4").upper()
    by_function: dict[str, list[RegisterAccess]] = {}
    for r in program.registers:
        by_function.setdefault(r.function, []).append(r)
    barriers: dict[str, list[tuple[str, Where]]] = {}
    for c in program.calls:
        barriers.setdefault(c.caller, []).append((c.callee_name, c.where))
    out = []
    for e in errata():
        if not e.checked or not any(up.startswith(p) for p in e.parts):
            continue
        reg, bit = re.compile(e.register), re.compile(e.bit)
        for fn, accesses in by_function.items():
            accesses = sorted(accesses, key=lambda r: _key(r.where))
            for i, w in enumerate(accesses):
                if w.block != e.block or w.kind not in ("write", "set") or not reg.search(
                        w.register) or w.value is None:
                    continue
                affected = set(e.affects)
                for n in w.value.names:
                    m = bit.match(n)
                    if m and m.groups():
                        affected.add(m.group(1))
                    elif m:
                        affected.update(e.affects)
                if not any(bit.match(n) for n in w.value.names):
                    continue
                stops = [_key(b[1]) for b in barriers.get(fn, []) if b[0] in e.barriers
                         and _key(b[1]) > _key(w.where)]
                for nxt in accesses[i + 1:]:
                    if stops and _key(nxt.where) > min(stops):
                        break
                    if nxt.block == e.readback and nxt.register == w.register and nxt.kind in (
                            "read", "set", "clear", "rmw"):
                        break  # read back (a read-modify-write reads it too)
                    if nxt.block in affected:
                        out.append(Violation(e, w, nxt, nxt.block))
                        break
    return out
