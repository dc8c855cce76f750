"""BG305: a GPIO port configured while its clock is never enabled, or only enabled later.

The port's clock counts as enabled by the HAL macro (``__HAL_RCC_GPIOB_CLK_ENABLE()``, also
behind a project alias), the LL call (``LL_AHB1_GRP1_EnableClock(LL_AHB1_GRP1_PERIPH_GPIOB)``)
or a constant write setting ``RCC_AHB1ENR_GPIOBEN``, anywhere in the program. Reported: no
enable at all, or enables only in the configuring function after the ``HAL_GPIO_Init`` (the
order across functions is not followed: an enable elsewhere counts as before).
"""

from __future__ import annotations

from collections.abc import Iterable

from brickguard.config import Config
from brickguard.findings import Finding, Level
from brickguard.program import Program
from brickguard.rules.base import Rule
from brickguard.rules.messages import at, here


def check(program: Program, config: Config) -> Iterable[Finding]:
    chip = program.chip
    enables: dict[str, list] = {}
    for e in chip.enables:
        enables.setdefault(e.block, []).append(e)
    seen = set()
    for port, where, function, offset in chip.gpio_inits:
        if (port, where) in seen:
            continue
        seen.add((port, where))
        found = enables.get(port, [])
        if not found:
            yield Finding("BG305", RULE.level,
                          f"{port}'s clock is never enabled: HAL_GPIO_Init writes registers of "
                          f"a port with no clock, and the pin stays as it was (enable it with "
                          f"__HAL_RCC_{port}_CLK_ENABLE() before)",
                          here(where, f"{port} configured here"))
        elif all(e.function == function and e.offset > offset for e in found):
            e = min(found, key=lambda e: e.offset)
            yield Finding("BG305", RULE.level,
                          f"{port}'s clock is enabled only after this configuration (at "
                          f"{at(e.where)}): the writes here go to an unclocked port",
                          here(where, f"{port} configured here"),
                          related=(here(e.where, f"{e.how}"),))


RULE = Rule(
    id="BG305",
    title="GPIO port configured before its clock is enabled",
    level=Level.error,
    rationale=(
        "An STM32 peripheral ignores register writes while its RCC clock is off. Init code "
        "that configures a port and enables its clock afterwards (or never) compiles, runs "
        "and leaves the pin in its reset state."
    ),
    instead="Enable the port's clock (__HAL_RCC_GPIOx_CLK_ENABLE()) before HAL_GPIO_Init.",
    example_bad=(
        "void pins(void) { GPIO_InitTypeDef g = {0}; g.Pin = GPIO_PIN_12;\n"
        "  g.Mode = GPIO_MODE_OUTPUT_PP; HAL_GPIO_Init(GPIOD, &g); }"
    ),
    example_good=(
        "void pins(void) { GPIO_InitTypeDef g = {0}; __HAL_RCC_GPIOD_CLK_ENABLE();\n"
        "  g.Pin = GPIO_PIN_12; g.Mode = GPIO_MODE_OUTPUT_PP; HAL_GPIO_Init(GPIOD, &g); }"
    ),
    check=check,
)
