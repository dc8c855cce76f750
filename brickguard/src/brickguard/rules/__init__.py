"""The rule registry. One module per rule; each module defines ``RULE``.

How the interrupt rules relate, so one bug gives one finding per place (not a flood):

- At one task-side access site (object, line) at most one of BG101/BG102/BG103 is reported, the
  most specific: BG102 (non-atomic read-modify-write) over BG103 (torn wide access) over BG101
  (unprotected shared access).
- BG104 is reported once per object, at its declaration: the fix (``volatile``) is made there.
- BG105 is about the critical sections themselves, at the call that opens or closes one.
"""

from __future__ import annotations

from brickguard.rules import (
    bg000,
    bg101,
    bg102,
    bg103,
    bg104,
    bg105,
    bg110,
    bg111,
    bg112,
    bg201,
    bg202,
    bg203,
    bg204,
    bg205,
    bg501,
    bg502,
)
from brickguard.rules.base import Rule

_RULES: list[Rule] = [
    m.RULE for m in (bg000, bg101, bg102, bg103, bg104, bg105, bg201, bg202, bg203, bg204, bg205)
]
# Interrupt-unsafe calls (BG11x) and DMA/cache (BG5xx), from the platform profiles.
_RULES += [m.RULE for m in (bg110, bg111, bg112, bg501, bg502)]
_RULES.sort(key=lambda r: r.id)


def all_rules() -> list[Rule]:
    """Every rule, in ID order, BG000 (front-end diagnostics) included."""
    return list(_RULES)


def get_rule(rule_id: str) -> Rule:
    """The rule with this ID (case-insensitive); KeyError when there is none."""
    for rule in _RULES:
        if rule.id == rule_id.upper():
            return rule
    raise KeyError(rule_id)
