"""What a rule is: a stable ID, the words ``brickguard explain`` prints, and a check."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from brickguard.findings import Finding, Level

if TYPE_CHECKING:
    from brickguard.config import Config
    from brickguard.program import Program


@dataclass(frozen=True)
class Rule:
    id: str  # stable, e.g. "BG101"; never reused for another meaning
    title: str  # one line
    level: Level
    rationale: str  # why it is bad
    instead: str  # what to do instead
    example_bad: str  # C that the rule reports
    example_good: str  # the fixed C
    check: Callable[[Program, Config], Iterable[Finding]]


def no_findings(program: Program, config: Config) -> Iterable[Finding]:
    """The check of the MISRA rules: their findings come from cppcheck's run (misra.py)."""
    return ()


def sdk_check(rule_id: str) -> Callable[[Program, Config], Iterable[Finding]]:
    """The check of SDK rule ``rule_id`` (BG2xx): its share of ``Program.sdk_findings``."""

    def check(program: Program, config: Config) -> Iterable[Finding]:
        return (f.to_finding() for _, f in program.sdk_findings if f.rule == rule_id)

    return check


def demo_check(rule_id: str) -> Callable[[Program, Config], Iterable[Finding]]:
    """The check of vendor-demo rule ``rule_id`` (BG4xx): its share of
    ``Program.demo_findings``."""

    def check(program: Program, config: Config) -> Iterable[Finding]:
        return (f for f in program.demo_findings if f.rule == rule_id)

    return check
