"""DMA transfers the code starts, with the buffer each one hands over (BG501, BG502).

``Program.dma_starts`` computes these once per program from the platform profiles' tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from brickguard.facts import ArgFact, CallFact

if TYPE_CHECKING:
    from brickguard.program import Program


class Direction(StrEnum):
    tx = "tx"  # memory to peripheral: the CPU's writes must be cleaned out of the cache first
    rx = "rx"  # peripheral to memory: the CPU's cached lines must be invalidated before reading


@dataclass(frozen=True)
class DmaStart:
    call: CallFact
    direction: Direction
    buffer: ArgFact  # the argument naming the buffer (its variable is known)


def buffer_of(call: CallFact, index: int) -> ArgFact | None:
    """The argument naming the buffer of a DMA or cache call, or None."""
    if 0 <= index < len(call.args) and call.args[index].var_usr:
        return call.args[index]
    return None


def dma_starts(program: Program) -> list[DmaStart]:
    """Every DMA start with a known buffer, in call order."""
    plat = program.config.platform
    out = []
    for c in program.calls:
        for direction, table in ((Direction.tx, plat.dma_tx), (Direction.rx, plat.dma_rx)):
            if c.callee_name in table:
                arg = buffer_of(c, table[c.callee_name])
                if arg is not None:
                    out.append(DmaStart(c, direction, arg))
    return out
