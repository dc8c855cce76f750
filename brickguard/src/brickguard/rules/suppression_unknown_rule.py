"""BG001: an inline suppression names a rule that does not exist.

``// brickguard: ignore[BG1O1]`` (a letter O) hides nothing, and the finding it was meant for
comes back, or worse, the reviewer believes it was looked at. Every ``ignore[...]`` comment in
the translation units and in the project headers they include is read; an ID that is neither a
known rule nor ``*`` is reported with the nearest known ID.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from brickguard.config import Config
from brickguard.findings import Finding, Level, Location
from brickguard.program import Program
from brickguard.rule_ids import is_known, unknown_message
from brickguard.rules.base import Rule
from brickguard.suppress import suppression_ids


def check(program: Program, config: Config) -> Iterable[Finding]:
    files = dict.fromkeys(f for u in program.units for f in (u.file, *u.headers))
    for file in files:
        try:
            text = Path(file).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if "brickguard:" not in text:
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            for entry, column in suppression_ids(line):
                if entry != "*" and not is_known(entry, prefix=False):
                    message = unknown_message(entry, "suppression comment").split(": ", 1)[1]
                    yield Finding(RULE.id, RULE.level, message + "; it suppresses nothing",
                                  Location(file, number, column))


RULE = Rule(
    id="BG001",
    title="a suppression comment names an unknown rule",
    level=Level.error,
    rationale=(
        "A suppression with a misspelt rule ID hides nothing, so the reviewer's deviation is not "
        "recorded and the finding it meant to cover still fails the build, or the reader of the "
        "code believes a check was looked at when it never ran."
    ),
    instead="Write an ID that `brickguard rules` lists (or `*` for every rule).",
    example_bad="x++; // brickguard: ignore[BG1O1] reviewed: only main writes x",
    example_good="x++; // brickguard: ignore[BG101] reviewed: only main writes x",
    check=check,
)
