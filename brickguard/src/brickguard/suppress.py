"""Inline suppressions: ``// brickguard: ignore[BG101] reason`` in the C source.

A suppression applies to findings on its own line, or, when the comment stands alone on its line,
to findings on the line directly below (so long statements can keep their comment above them).
``ignore[*]`` suppresses every rule. The reason is kept (``""`` when none was written) because
SARIF carries it as the suppression's justification and reviewers read it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from brickguard.findings import Finding

# The rule list stops at ']'; the reason runs to the end of the line or of a /* */ comment.
_PATTERN = re.compile(r"brickguard:\s*ignore\[(?P<rules>[^\]]*)\]\s*(?P<reason>.*)$")

LineReader = Callable[[str, int], "str | None"]


@dataclass(frozen=True, slots=True)
class Suppression:
    rules: frozenset[str] | None  # None means every rule (ignore[*])
    reason: str
    line: int  # where the comment is

    def covers(self, rule: str) -> bool:
        return self.rules is None or rule.upper() in self.rules


def parse_suppression(text: str, line: int) -> Suppression | None:
    """The suppression written in one source line, or None when there is none."""
    match = _PATTERN.search(text)
    if match is None:
        return None
    ids = [part.strip().upper() for part in match["rules"].split(",") if part.strip()]
    reason = match["reason"]
    if "*/" in reason:
        reason = reason[: reason.index("*/")]
    reason = reason.strip()
    rules = None if "*" in ids else frozenset(ids)
    return Suppression(rules=rules, reason=reason, line=line)


def suppression_ids(text: str) -> list[tuple[str, int]]:
    """The rule IDs one source line's suppression names, upper case, each with its 1-based
    column (``*`` included): what BG001 checks against the known rules."""
    match = _PATTERN.search(text)
    if match is None:
        return []
    out, column = [], match.start("rules") + 1
    for part in match["rules"].split(","):
        if part.strip():
            out.append((part.strip().upper(), column + len(part) - len(part.lstrip())))
        column += len(part) + 1
    return out


def _is_comment_only(text: str) -> bool:
    stripped = text.lstrip()
    return stripped.startswith("//") or stripped.startswith("/*") or stripped.startswith("*")


def find_suppression(finding: Finding, read_line: LineReader) -> Suppression | None:
    """The suppression that hides ``finding``, looking at its line and the line above."""
    file, number = finding.location.file, finding.location.line
    here = read_line(file, number)
    if here is not None:
        found = parse_suppression(here, number)
        if found is not None and found.covers(finding.rule):
            return found
    above = read_line(file, number - 1) if number > 1 else None
    if above is not None and _is_comment_only(above):
        found = parse_suppression(above, number - 1)
        if found is not None and found.covers(finding.rule):
            return found
    return None


def split_suppressed(
    findings: Iterable[Finding], read_line: LineReader
) -> tuple[list[Finding], list[tuple[Finding, Suppression]]]:
    """Findings kept, and findings hidden with the suppression that hid each."""
    kept: list[Finding] = []
    hidden: list[tuple[Finding, Suppression]] = []
    for finding in findings:
        suppression = find_suppression(finding, read_line)
        if suppression is None:
            kept.append(finding)
        else:
            hidden.append((finding, suppression))
    return kept, hidden
