"""The report every format renders: findings after suppressions and the baseline are applied."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from brickguard.findings import FailOn, Finding, Level
from brickguard.report.fingerprint import fingerprints
from brickguard.report.source import SourceCache
from brickguard.suppress import Suppression, find_suppression


class RuleInfo(Protocol):
    """What reports need to know about a rule (``brickguard.rules.base.Rule`` has all of it)."""

    @property
    def id(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def level(self) -> Level: ...
    @property
    def rationale(self) -> str: ...
    @property
    def instead(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Item:
    """One finding as reported: with its fingerprint and, if any, the suppression hiding it."""

    finding: Finding
    fingerprint: str
    suppression: Suppression | None = None


@dataclass
class Report:
    items: list[Item]  # sorted in file order; suppressed ones included, baselined ones not
    files: list[str]
    rules: Sequence[RuleInfo]
    source: SourceCache
    baselined: int = 0  # findings hidden because the baseline lists them
    show_suppressed: bool = False
    # Interrupt contexts by entry name (analyze.AnalysisResult.interrupts), for --confirm.
    interrupts: dict[str, Any] = field(default_factory=dict)
    rule_ids: list[str] = field(init=False)  # the rules, then any other ids the findings use

    def __post_init__(self) -> None:
        ids = [rule.id for rule in self.rules]
        for item in self.items:
            if item.finding.rule not in ids:
                ids.append(item.finding.rule)
        self.rule_ids = ids

    @property
    def active(self) -> list[Item]:
        """Findings that count: not suppressed, not in the baseline."""
        return [item for item in self.items if item.suppression is None]

    @property
    def shown(self) -> list[Item]:
        """Findings a report prints: the active ones, plus suppressed ones on request."""
        return self.items if self.show_suppressed else self.active

    @property
    def suppressed(self) -> int:
        return sum(1 for item in self.items if item.suppression is not None)

    def rule(self, rule_id: str) -> RuleInfo | None:
        return next((rule for rule in self.rules if rule.id == rule_id), None)

    def counts(self) -> dict[str, int]:
        """Active findings by level, every level present."""
        by_level = Counter(item.finding.level.value for item in self.active)
        return {level.value: by_level.get(level.value, 0) for level in Level}

    def by_rule(self) -> dict[str, int]:
        return dict(sorted(Counter(item.finding.rule for item in self.active).items()))

    def fails(self, fail_on: FailOn) -> bool:
        """Whether an active finding reaches ``fail_on`` (a level name, or ``never``)."""
        if fail_on == "never":
            return False
        threshold = Level(fail_on).rank
        return any(item.finding.level.rank >= threshold for item in self.active)


def build_report(
    findings: Sequence[Finding],
    files: Sequence[str],
    rules: Sequence[RuleInfo],
    root: Path,
    *,
    baseline: Collection[str] = (),
    show_suppressed: bool = False,
    source: SourceCache | None = None,
    interrupts: dict[str, Any] | None = None,
) -> Report:
    """Apply inline suppressions and the baseline to ``findings`` and fingerprint what is left."""
    source = source or SourceCache(root)
    ordered = sorted(findings, key=lambda f: f.sort_key())
    prints = fingerprints(ordered, source)
    items: list[Item] = []
    baselined = 0
    for finding, fingerprint in zip(ordered, prints, strict=True):
        suppression = find_suppression(finding, source.line)
        if suppression is None and fingerprint in baseline:
            baselined += 1
            continue
        items.append(Item(finding, fingerprint, suppression))
    return Report(
        items=items,
        files=list(files),
        rules=rules,
        source=source,
        baselined=baselined,
        show_suppressed=show_suppressed,
        interrupts=dict(interrupts or {}),
    )


def summary_line(report: Report) -> str:
    """One line for stderr: how many findings at which level, and what was hidden."""
    counts = report.counts()
    total = sum(counts.values())
    files = len(report.files)
    where = f"in {files} file{'s' if files != 1 else ''}"
    if total == 0:
        text = f"no findings {where}"
    else:
        parts = [
            f"{n} {level}{'s' if n != 1 else ''}"
            for level, n in sorted(counts.items(), key=lambda kv: -Level(kv[0]).rank)
            if n
        ]
        text = f"{total} finding{'s' if total != 1 else ''} ({', '.join(parts)}) {where}"
    hidden = []
    if report.suppressed:
        hidden.append(f"{report.suppressed} suppressed")
    if report.baselined:
        hidden.append(f"{report.baselined} hidden by the baseline")
    return text + (f"; {', '.join(hidden)}" if hidden else "")
