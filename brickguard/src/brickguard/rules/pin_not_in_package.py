"""BG302: a pin that the part does not have in its package (PI0 on a 100-pin STM32F407).

Parking every pin of a port in analog mode (``GPIO_PIN_All``, the low-power idiom of ST's own
examples) is not reported: it drives and reads nothing, and is harmless on a port the package
does not bond out."""

from __future__ import annotations

from collections.abc import Iterable

from brickguard.chip.pins import pin_sort_key
from brickguard.config import Config
from brickguard.findings import Finding, Level
from brickguard.program import Program
from brickguard.rules.base import Rule
from brickguard.rules.messages import here


def check(program: Program, config: Config) -> Iterable[Finding]:
    data = program.chip.data
    if data is None:
        return
    seen = set()
    ports = sorted({p[1] for p in data.pins})
    for c in program.chip.configs:
        if c.pin in data.pins or (c.pin, c.where) in seen or (c.mode == "analog" and c.all_pins):
            continue
        seen.add((c.pin, c.where))
        same_port = sorted((p for p in data.pins if p[1] == c.pin[1]), key=pin_sort_key)
        has = (f"its port {c.pin[1]} pins are {same_port[0]}-{same_port[-1]}" if same_port
               else f"it has no port {c.pin[1]} (ports {', '.join(ports)})")
        yield Finding(
            "BG302", RULE.level,
            f"{c.pin} is not a pin of {data.mcu} in its {data.package} package: {has}",
            here(c.where, f"{c.via} configures {c.pin}"))


RULE = Rule(
    id="BG302",
    title="Pin that does not exist in this part's package",
    level=Level.error,
    rationale=(
        "The GPIO headers define every port of the die, but a package bonds out only some "
        "pins: configuring PI0 on a 100-pin part compiles and drives nothing (the signal "
        "never leaves the chip), and the code was written for another board."
    ),
    instead="Use a pin the package has (the message lists them) or name the right part.",
    example_bad=(
        "void pins(void) { GPIO_InitTypeDef g = {0}; __HAL_RCC_GPIOI_CLK_ENABLE();\n"
        "  g.Pin = GPIO_PIN_0; g.Mode = GPIO_MODE_OUTPUT_PP; HAL_GPIO_Init(GPIOI, &g); }"
    ),
    example_good=(
        "void pins(void) { GPIO_InitTypeDef g = {0}; __HAL_RCC_GPIOD_CLK_ENABLE();\n"
        "  g.Pin = GPIO_PIN_12; g.Mode = GPIO_MODE_OUTPUT_PP; HAL_GPIO_Init(GPIOD, &g); }"
    ),
    check=check,
)
