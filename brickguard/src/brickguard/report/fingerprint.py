"""Fingerprints: an identity for a finding that survives edits elsewhere in the file.

Baselines and code-scanning services match findings across runs. Line numbers change whenever
someone adds a line above, so the fingerprint hashes what a person would call "the same problem":
the rule, the file (relative to the project root), the text of the offending line with its
whitespace collapsed, and the message with line numbers and directories taken out. Findings equal
on all of that get an occurrence counter, in file order, so each stays distinct.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

from brickguard.findings import Finding
from brickguard.report.source import SourceCache

FINGERPRINT_KEY = "brickguard/v1"  # the SARIF partialFingerprints key; bump if the recipe changes

_LINE_REFS = [
    # Directories differ between checkouts and machines: keep only a path's last part.
    (re.compile(r"[^\s()'\"`]*[/\\]([^\s/\\()'\"`]+)"), r"\1"),
    (re.compile(r"(\.[A-Za-z]\w*):\d+(?::\d+)?"), r"\1"),  # "main.c:42:7" -> "main.c"
    (re.compile(r"\b(lines?|col(?:umn)?s?)\s+\d+", re.IGNORECASE), r"\1"),  # "line 42" -> "line"
]
_SPACE = re.compile(r"\s+")


def normalise_message(message: str) -> str:
    for pattern, replacement in _LINE_REFS:
        message = pattern.sub(replacement, message)
    return _SPACE.sub(" ", message).strip()


def normalise_line(text: str | None) -> str:
    return _SPACE.sub(" ", text or "").strip()


def fingerprints(findings: Sequence[Finding], source: SourceCache) -> list[str]:
    """One fingerprint per finding, in the order given (duplicates counted in file order)."""
    keys = [
        "\x1f".join(
            (
                finding.rule,
                source.display(finding.location.file),
                normalise_line(source.line(finding.location.file, finding.location.line)),
                normalise_message(finding.message),
            )
        )
        for finding in findings
    ]
    # Count occurrences in file order, not in the order given, so the counter is stable.
    order = sorted(range(len(findings)), key=lambda i: findings[i].sort_key())
    seen: dict[str, int] = {}
    result = [""] * len(findings)
    for index in order:
        occurrence = seen.get(keys[index], 0)
        seen[keys[index]] = occurrence + 1
        digest = hashlib.sha256(f"{keys[index]}\x1f{occurrence}".encode()).hexdigest()
        result[index] = digest[:32]
    return result
