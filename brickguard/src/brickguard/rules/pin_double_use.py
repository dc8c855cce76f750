"""BG303: one pin configured by two peripherals that both drive it (the short-circuit risk).

Two configurations of a pin conflict when both drive it (an AF or an output) for different
owners: two peripherals' AFs, or a peripheral's AF and a plain GPIO output. Configuring one
pin twice for the same owner (an MSP init called again) is not reported; nor is an input or
analog set-up, which drives nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

from brickguard.config import Config
from brickguard.findings import Finding, Level
from brickguard.program import Program
from brickguard.rules.base import Rule
from brickguard.rules.messages import at, here


def check(program: Program, config: Config) -> Iterable[Finding]:
    by_pin: dict[str, list] = {}
    for c in program.chip.configs:
        if c.drives:
            by_pin.setdefault(c.pin, []).append(c)
    for pin, configs in sorted(by_pin.items()):
        configs.sort(key=lambda c: (c.where.file, c.where.line))
        first = configs[0]
        for c in configs[1:]:
            if c.owner != first.owner:
                yield Finding(
                    "BG303", RULE.level,
                    f"{pin} is configured for {c.owner} here and for {first.owner} at "
                    f"{at(first.where)}: two drivers on one pin (a short circuit when both "
                    f"drive it; one peripheral loses the pin)",
                    here(c.where, f"{c.via}: {pin} for {c.owner}"),
                    related=(here(first.where, f"{first.via}: {pin} for {first.owner}"),))
                break


RULE = Rule(
    id="BG303",
    title="One pin configured by two peripherals",
    level=Level.error,
    rationale=(
        "A pin has one driver at a time. Drafted init code that gives PB6 to I2C1 and also to "
        "USART1 (or makes it a push-pull output) leaves one peripheral dead, and when two "
        "outputs fight a pin the port can burn."
    ),
    instead="Give each signal its own pin; reconfigure a shared pin only after deinitialising it.",
    example_bad=(
        "void pins(void) { GPIO_InitTypeDef g = {0}; __HAL_RCC_GPIOB_CLK_ENABLE();\n"
        "  g.Pin = GPIO_PIN_6; g.Mode = GPIO_MODE_AF_OD; g.Alternate = GPIO_AF4_I2C1;\n"
        "  HAL_GPIO_Init(GPIOB, &g);\n"
        "  g.Mode = GPIO_MODE_AF_PP; g.Alternate = GPIO_AF7_USART1; HAL_GPIO_Init(GPIOB, &g); }"
    ),
    example_good=(
        "void pins(void) { GPIO_InitTypeDef g = {0}; __HAL_RCC_GPIOB_CLK_ENABLE();\n"
        "  g.Pin = GPIO_PIN_6; g.Mode = GPIO_MODE_AF_OD; g.Alternate = GPIO_AF4_I2C1;\n"
        "  HAL_GPIO_Init(GPIOB, &g);\n"
        "  g.Pin = GPIO_PIN_9; g.Mode = GPIO_MODE_AF_PP; g.Alternate = GPIO_AF7_USART1;\n"
        "  HAL_GPIO_Init(GPIOB, &g); }"
    ),
    check=check,
)
