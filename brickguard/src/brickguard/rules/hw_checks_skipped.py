"""BG300: the pin checks (BG301-BG304) could not run: no target part, or no pin data for it.

A gate never passes silently: a project that configures pins but names no part (or whose pin
data is missing) gets this one note, at its first pin configuration, saying what to set.
"""

from __future__ import annotations

from collections.abc import Iterable

from brickguard.config import Config
from brickguard.findings import Finding, Level
from brickguard.program import Program
from brickguard.rules.base import Rule
from brickguard.rules.messages import here


def check(program: Program, config: Config) -> Iterable[Finding]:
    chip = program.chip
    if not chip.skipped:
        return
    first = min(chip.gpio_inits, key=lambda g: (g[1].file, g[1].line), default=None)
    if first is None:
        return
    yield Finding("BG300", RULE.level,
                  f"pin checks (BG301-BG304) not run: {chip.skipped}",
                  here(first[1], "a pin configuration that was not checked"))


RULE = Rule(
    id="BG300",
    title="Pin checks not run: no target part or no pin data",
    level=Level.note,
    rationale=(
        "Whether an alternate function, a pin or a peripheral exists is a fact about one part "
        "in one package. Without knowing the part (and having its pin data) brickguard cannot "
        "check the configuration, and says so instead of passing it."
    ),
    instead=(
        'Name the part: `[target] mcu = "STM32F407VGTx"` (or keep the CubeMX .ioc in the '
        'project), and point `[target] pin_data` at ST\'s STM32_open_pin_data folder.'
    ),
    example_bad=(
        "void pins(void) { GPIO_InitTypeDef g = {0}; g.Pin = GPIO_PIN_6; "
        "g.Mode = GPIO_MODE_AF_OD;\n  g.Alternate = GPIO_AF4_I2C1; __HAL_RCC_GPIOB_CLK_ENABLE();"
        " HAL_GPIO_Init(GPIOB, &g); }"
    ),
    example_good=(
        "/* brickguard.toml: [target] mcu = \"STM32F407VGTx\", pin_data = ... */\n"
        "void pins(void) { }"
    ),
    check=check,
)
