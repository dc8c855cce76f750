"""The rule registry. One module per rule, named by what it detects; each defines ``RULE``,
whose ``id`` (``BG101``) is the stable key users select, ignore and suppress by.
``messages`` holds the wording several rules share; the analyses they share are ``Program``'s.

How the interrupt rules relate, so one bug gives one finding per place (not a flood):

- At one task-side access site (object, line) at most one of BG101/BG102/BG103 is reported, the
  most specific: BG102 (non-atomic read-modify-write) over BG103 (torn wide access) over BG101
  (unprotected shared access).
- BG104 is reported once per object, at its declaration: the fix (``volatile``) is made there.
- BG105 is about the critical sections themselves, at the call that opens or closes one.
"""

from __future__ import annotations

from brickguard.rules import (
    dma_buffer_placement,
    dma_cache_maintenance,
    frontend_diagnostic,
    isr_blocking_call,
    isr_nonatomic_update,
    isr_not_reentrant,
    isr_shared_not_volatile,
    isr_shared_unprotected,
    isr_task_api,
    isr_torn_access,
    rtos_priority_inversion,
    sdk_argument_count,
    sdk_argument_type,
    sdk_other_version,
    sdk_unknown_function,
    sdk_unknown_name,
    unbalanced_critical_section,
)
from brickguard.rules.base import Rule

_MODULES = (
    frontend_diagnostic,  # BG000
    # BG1xx: interrupts and concurrency
    isr_shared_unprotected,  # BG101
    isr_nonatomic_update,  # BG102
    isr_torn_access,  # BG103
    isr_shared_not_volatile,  # BG104
    unbalanced_critical_section,  # BG105
    isr_blocking_call,  # BG110
    isr_task_api,  # BG111
    isr_not_reentrant,  # BG112
    rtos_priority_inversion,  # BG113
    # BG2xx: SDK truth (hallucinated APIs)
    sdk_unknown_function,  # BG201
    sdk_argument_count,  # BG202
    sdk_unknown_name,  # BG203
    sdk_other_version,  # BG204
    sdk_argument_type,  # BG205
    # BG5xx: DMA and data cache
    dma_cache_maintenance,  # BG501
    dma_buffer_placement,  # BG502
)
_RULES: list[Rule] = sorted((m.RULE for m in _MODULES), key=lambda r: r.id)


def all_rules() -> list[Rule]:
    """Every rule, in ID order, BG000 (front-end diagnostics) included."""
    return list(_RULES)


def get_rule(rule_id: str) -> Rule:
    """The rule with this ID (case-insensitive); KeyError when there is none."""
    for rule in _RULES:
        if rule.id == rule_id.upper():
            return rule
    raise KeyError(rule_id)
