"""Worst-case stack depth (BG510-BG512): not built yet."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from brickguard.program import Program


@dataclass
class StackReport:
    skipped: str = ""
    entries: list = field(default_factory=list)


def stack_report(program: Program) -> StackReport:
    return StackReport()
