"""Findings: what every rule yields and every report renders."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal, get_args

# ``--fail-on`` and ``[rules] fail_on``: exit 1 when an active finding reaches this level.
FailOn = Literal["note", "warning", "error", "never"]
FAIL_LEVELS: tuple[str, ...] = get_args(FailOn)
# The gate's own notes (rules/analysis_not_run.py, rules/setup_fallback.py): reported whatever
# ``select`` says; ``--fail-on-skip`` fails the run on NOT_RUN.
NOT_RUN = "BG002"  # an analysis did not run, or ran on part of the code
FALLBACK = "BG003"  # a set-up gap filled by brickguard's own stated choice


class Level(StrEnum):
    """Severity, in SARIF's words. ``--fail-on`` compares against this order."""

    note = "note"
    warning = "warning"
    error = "error"

    @property
    def rank(self) -> int:
        return {"note": 0, "warning": 1, "error": 2}[self.value]


@dataclass(frozen=True, slots=True)
class Location:
    file: str  # as given on the command line or in the compile database
    line: int  # 1-based
    column: int = 1  # 1-based
    message: str = ""  # what happens here, e.g. "written in USART1_IRQHandler (interrupt)"


@dataclass(frozen=True, slots=True)
class Finding:
    rule: str  # stable ID, e.g. "BG101"; "BG000" for front-end diagnostics
    level: Level
    message: str
    location: Location  # where the finding is reported (the line a fixture marks with expect:)
    related: tuple[Location, ...] = field(default=())  # other places involved (the other access)
    # Steps of a code flow (SARIF codeFlows), e.g. the ISR write then the unprotected task read,
    # or the call chain from an interrupt handler down to a blocking call.
    flow: tuple[Location, ...] = field(default=())

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.location.file, self.location.line, self.location.column, self.rule)
