"""BG311: fewer flash wait states than the part needs at the HCLK the code sets, for the
supply (``[target] vdd_mv``, default 3.3 V), from the reference manual's wait-state table."""

from __future__ import annotations

from collections.abc import Iterable

from brickguard.config import Config
from brickguard.findings import Finding, Level
from brickguard.program import Program
from brickguard.rules.base import Rule
from brickguard.rules.clock_out_of_range import RULE as BG310
from brickguard.rules.clock_out_of_range import clock_findings


def check(program: Program, config: Config) -> Iterable[Finding]:
    return clock_findings(program, RULE)


RULE = Rule(
    id="BG311",
    title="Too few flash wait states for the clock",
    level=Level.error,
    rationale=(
        "The flash needs one wait state per 30 MHz of HCLK at 3.3 V on an STM32F4 (fewer MHz "
        "per state at lower supplies). With too few the core reads wrong instructions and "
        "constants: crashes that come and go with temperature and code layout."
    ),
    instead=(
        "Pass HAL_RCC_ClockConfig the latency the reference manual's table gives for the HCLK "
        "and supply (FLASH_LATENCY_5 at 168 MHz and 3.3 V on an F407)."
    ),
    example_bad=BG310.example_good.replace("FLASH_LATENCY_5", "FLASH_LATENCY_3"),
    example_good=BG310.example_good,
    check=check,
)
