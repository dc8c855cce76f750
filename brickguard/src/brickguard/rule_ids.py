"""Rule IDs as users write them (``[rules] select/ignore``, ``--select/--ignore``, inline
``ignore[...]`` comments), checked against the rules that exist.

The known IDs come from the registry (``rules.all_rules()``) and the MISRA table, never from a
list kept here, so a rule family added tomorrow is known the day it is registered. A selection
entry may be an ID or a prefix of one (``BG1`` selects BG101-BG112); anything that names no rule
is an error that lists the known IDs and the nearest one: a typo must not turn the gate off.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from brickguard.errors import ConfigError

MISRA_ID = re.compile(r"MISRA-C2012-\d+\.\d+")


def known_ids() -> list[str]:
    """Every rule ID brickguard can report, in ID order (the registry's, then MISRA's)."""
    from brickguard.misra import PREFIX, misra_rules
    from brickguard.rules import all_rules

    return [r.id for r in all_rules()] + [PREFIX + n for n in misra_rules()]


def is_known(entry: str, *, prefix: bool) -> bool:
    """Whether ``entry`` (upper case) names a rule: exactly, or as a prefix when allowed."""
    if MISRA_ID.fullmatch(entry):  # cppcheck may report a MISRA rule the table has no words for
        return True
    ids = known_ids()
    return any(i.startswith(entry) for i in ids) if prefix else entry in ids


def unknown_message(entry: str, where: str) -> str:
    """'<where>: unknown rule id 'BG999' (nearest: BG101); known: BG000, ...'."""
    ids = known_ids()
    families = sorted({i for i in ids if not i.startswith("MISRA-C2012-")})
    near = min(ids, key=lambda i: _distance(entry, i), default=None)  # ties: registry order
    nearest = f" (nearest: {near})" if near else ""
    return (
        f"{where}: unknown rule id {entry!r}{nearest}; known: {', '.join(families)}, "
        "MISRA-C2012-<rule> (e.g. MISRA-C2012-10.4); see `brickguard rules`"
    )


def checked_ids(entries: Iterable[str], where: str) -> list[str]:
    """The entries in upper case, each an ID or a prefix of one; else a ConfigError."""
    out = []
    for raw in entries:
        entry = raw.strip().upper()
        if not entry or not is_known(entry, prefix=True):
            raise ConfigError(unknown_message(entry or repr(raw), where))
        out.append(entry)
    return out


def _distance(a: str, b: str) -> int:
    """Edit distance (insert, delete, substitute one character)."""
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, start=1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]
