"""BG320: register-level code that takes a path the silicon errata forbid without the
workaround the vendor's own drivers apply (chip/errata.py, data/errata/stm32f4.toml): first, a
peripheral touched right after its RCC clock enable with no read-back of the enable register
(``__HAL_RCC_<P>_CLK_ENABLE`` reads it back; a bare ``RCC->AHB1ENR |= ...`` does not)."""

from __future__ import annotations

from collections.abc import Iterable

from brickguard.chip.clock import target_part
from brickguard.chip.errata import violations
from brickguard.config import Config
from brickguard.findings import Finding, Level
from brickguard.program import Program
from brickguard.rules.base import Rule
from brickguard.rules.messages import at, here


def check(program: Program, config: Config) -> Iterable[Finding]:
    part = target_part(program)
    for v in violations(program, part):
        e, w, a = v.erratum, v.enable, v.access
        sheet = e.sheet(part)
        cite = f"{sheet} '{e.title}'" if sheet else f"erratum '{e.title}'"
        bits = next((n for n in w.value.names if "EN" in n or "DBP" in n), "") if w.value else ""
        yield Finding(
            "BG320", RULE.level,
            f"{a.block}->{a.register} is accessed right after {w.block}->{w.register} "
            f"{'|=' if w.kind == 'set' else '='} {bits} ({at(w.where)}) with no read-back in "
            f"between: {cite}: {e.workaround}",
            here(a.where, f"{a.block} accessed"),
            related=(here(w.where, f"{w.block}->{w.register} written"),))


RULE = Rule(
    id="BG320",
    title="Register path without the errata workaround (RCC clock-enable read-back)",
    level=Level.warning,
    rationale=(
        "STM32F4 errata sheets (ES0182 for the F405/407) list a delay after an RCC clock "
        "enable: for two bus cycles the peripheral does not answer, and the first access is "
        "lost. The HAL's __HAL_RCC_<P>_CLK_ENABLE() reads the enable register back for this; "
        "register-level code drafted without the HAL usually does not."
    ),
    instead=(
        "Use __HAL_RCC_<P>_CLK_ENABLE(), or read the enable register back ((void)RCC->AHB1ENR;) "
        "or issue __DSB() between the enable and the first access."
    ),
    example_bad=(
        "void led(void) { RCC->AHB1ENR |= RCC_AHB1ENR_GPIODEN;\n"
        "  GPIOD->MODER |= GPIO_MODER_MODER12_0; }"
    ),
    example_good=(
        "void led(void) { RCC->AHB1ENR |= RCC_AHB1ENR_GPIODEN; (void)RCC->AHB1ENR;\n"
        "  GPIOD->MODER |= GPIO_MODER_MODER12_0; }"
    ),
    check=check,
)
