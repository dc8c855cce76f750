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
    analysis_not_run,
    clock_out_of_range,
    demo_callback_never_called,
    demo_missing_companion,
    demo_missing_msp_step,
    demo_missing_precondition,
    dma_buffer_placement,
    dma_buffer_race,
    dma_cache_maintenance,
    errata_clock_enable_delay,
    flash_wait_states,
    frontend_diagnostic,
    gpio_clock_disabled,
    hw_checks_skipped,
    isr_blocking_call,
    isr_nonatomic_update,
    isr_not_reentrant,
    isr_shared_not_volatile,
    isr_shared_unprotected,
    isr_task_api,
    isr_torn_access,
    peripheral_missing,
    pin_alternate_function,
    pin_double_use,
    pin_not_in_package,
    rtos_priority_inversion,
    sdk_argument_count,
    sdk_argument_type,
    sdk_other_version,
    sdk_unknown_function,
    sdk_unknown_name,
    setup_fallback,
    stack_not_checked,
    stack_overflow,
    stack_unbounded,
    suppression_unknown_rule,
    unbalanced_critical_section,
    unchecked_exclusive_store,
)
from brickguard.rules.base import Rule

_MODULES = (
    frontend_diagnostic,  # BG000
    # BG001-BG003: the gate itself (a bad suppression, what did not run, a set-up fallback)
    suppression_unknown_rule,  # BG001
    analysis_not_run,  # BG002
    setup_fallback,  # BG003
    # BG1xx: interrupts and concurrency
    isr_shared_unprotected,  # BG101
    isr_nonatomic_update,  # BG102
    isr_torn_access,  # BG103
    isr_shared_not_volatile,  # BG104
    unbalanced_critical_section,  # BG105
    unchecked_exclusive_store,  # BG106
    dma_buffer_race,  # BG107
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
    # BG3xx: hardware truth (the part's pins, peripherals and clocks)
    hw_checks_skipped,  # BG300
    pin_alternate_function,  # BG301
    pin_not_in_package,  # BG302
    pin_double_use,  # BG303
    peripheral_missing,  # BG304
    gpio_clock_disabled,  # BG305
    clock_out_of_range,  # BG310
    flash_wait_states,  # BG311
    errata_clock_enable_delay,  # BG320
    # BG4xx: vendor-demo protocol (with [demos] set)
    demo_missing_precondition,  # BG401
    demo_missing_companion,  # BG402
    demo_callback_never_called,  # BG403
    demo_missing_msp_step,  # BG404
    # BG5xx: DMA and data cache
    dma_cache_maintenance,  # BG501
    dma_buffer_placement,  # BG502
    # BG51x: stack depth
    stack_overflow,  # BG510
    stack_unbounded,  # BG511
    stack_not_checked,  # BG512
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
