"""BG301: a pin set to an alternate function it does not have on this part, or to the AF
number of another peripheral than the ``GPIO_AFn_<INSTANCE>`` macro names.

The AF numbers are the part's own (ST's pin data for the die, ``chip/pins.py``): an
assistant's pin-mux for another STM32 compiles (the macro exists in the header) and the
peripheral stays dead, or another peripheral gets the pin. The message lists the pin's real
alternate functions and where the intended peripheral's signals are.
"""

from __future__ import annotations

from collections.abc import Iterable

from brickguard.chip.gpio import PinConfig
from brickguard.chip.pins import PinData, af_macro, pin_sort_key
from brickguard.config import Config
from brickguard.findings import Finding, Level
from brickguard.program import Program
from brickguard.rules.base import Rule
from brickguard.rules.messages import here


def where_signals(data: PinData, instance: str) -> str:
    """'I2C1_SCL is AF4 on PB6, PB8; I2C1_SDA is AF4 on PB7, PB9'."""
    parts = []
    for name, places in sorted(data.signal_pins(instance).items()):
        by_af: dict[int, list[str]] = {}
        for pin, af in places:
            by_af.setdefault(af, []).append(pin)
        for af, pins in sorted(by_af.items()):
            pins.sort(key=pin_sort_key)
            parts.append(f"{name} is AF{af} on {', '.join(pins)}")
    if not parts:
        return f"{data.mcu} has no {instance} signal on any pin"
    return "; ".join(parts)


def problem(c: PinConfig, data: PinData) -> str | None:
    signals = [s for s in data.pins.get(c.pin, []) if s.af is not None]
    at = [s for s in signals if s.af == c.af]
    what = f"AF{c.af}" + (f" ({c.af_macro})" if c.af_macro else "")
    intended = af_macro(c.af_macro)[1] if c.af_macro else None
    if not at:
        has = ", ".join(f"AF{s.af} {s.name}" for s in sorted(signals, key=lambda s: s.af or 0))
        text = (f"{c.pin} has no {what} on {data.mcu}: its alternate functions are "
                f"{has or 'none'}")
    elif intended and not any(s.name.startswith(intended + "_") or s.macro == c.af_macro
                              for s in at):
        text = (f"AF{c.af} on {c.pin} is {', '.join(s.name for s in at)} on {data.mcu}, "
                f"not {intended} ({c.af_macro})")
    else:
        return None
    if intended:
        text += f"; {where_signals(data, intended)}"
    return text


def check(program: Program, config: Config) -> Iterable[Finding]:
    data = program.chip.data
    if data is None:
        return
    seen = set()
    for c in program.chip.configs:
        if c.mode != "af" or c.pin not in data.pins or (c.pin, c.where) in seen:
            continue
        text = problem(c, data)
        if text is not None:
            seen.add((c.pin, c.where))
            yield Finding("BG301", RULE.level, text,
                          here(c.where, f"{c.via} sets {c.pin} to AF{c.af}"))


RULE = Rule(
    id="BG301",
    title="Alternate function that this pin does not have on this part",
    level=Level.error,
    rationale=(
        "Each STM32 die has its own AF table: I2C1_SCL is AF4 on PB6 of an STM32F407, and an "
        "AF number copied from another part (or another pin) selects nothing, or another "
        "peripheral. It compiles, the HAL accepts it, and the bus stays silent."
    ),
    instead=(
        "Take the AF from the part's datasheet table (or CubeMX): use the pin that carries the "
        "signal at the AF the message lists, or the AF that this pin has."
    ),
    example_bad=(
        "void pins(void) { GPIO_InitTypeDef g = {0}; __HAL_RCC_GPIOB_CLK_ENABLE();\n"
        "  g.Pin = GPIO_PIN_6; g.Mode = GPIO_MODE_AF_OD; g.Alternate = GPIO_AF5_SPI1;\n"
        "  HAL_GPIO_Init(GPIOB, &g); }"
    ),
    example_good=(
        "void pins(void) { GPIO_InitTypeDef g = {0}; __HAL_RCC_GPIOB_CLK_ENABLE();\n"
        "  g.Pin = GPIO_PIN_6; g.Mode = GPIO_MODE_AF_OD; g.Alternate = GPIO_AF4_I2C1;\n"
        "  HAL_GPIO_Init(GPIOB, &g); }"
    ),
    check=check,
)
