"""The pins the code configures, checked against the part's pin data (BG301-BG305).

From the program's hardware facts (``hwfacts``), a ``PinConfig`` per pin of each constant
configuration: ``HAL_GPIO_Init``/``LL_GPIO_Init`` with a ``GPIO_InitTypeDef``/
``LL_GPIO_InitTypeDef`` whose ``Pin`` and ``Mode`` (and for an AF mode, ``Alternate``) are
constant and whose port is a ``GPIOx`` macro; ``LL_GPIO_SetAFPin_0_7/8_15(GPIOx, pin, af)``;
and constant writes to ``GPIOx->AFR[n]`` (each non-zero 4-bit field selects that pin's AF).
A configuration whose port or pin is a variable is not checked (it is not known here).

Modes are read from the value's low two bits, as both the HAL and LL encode them: 0 input,
1 output, 2 alternate function, 3 analog. A pin's *owner* is the peripheral its AF selects
(the ``GPIO_AFn_<INSTANCE>`` macro's instance, else the pin data's signal at that AF), or
"GPIO output"; two configurations of one pin by different owners that both drive it are
the short-circuit risk BG303 reports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from brickguard.chip.pins import PinData, af_macro, load_pin_data, pin_cache_dir
from brickguard.errors import ConfigError
from brickguard.facts import Where

if TYPE_CHECKING:
    from brickguard.program import Program

_PORT = re.compile(r"^GPIO([A-K])$")
_ENABLE = re.compile(r"^__HAL_RCC_(\w+?)_CLK_ENABLE$")
_LL_PERIPH = re.compile(r"^LL_(?:AHB|APB)\d_GRP\d_PERIPH_(\w+)$")
_RCC_BIT = re.compile(r"^RCC_(?:AHB|APB)\d?ENR_(\w+?)EN$")
MODES = {0: "input", 1: "output", 2: "af", 3: "analog"}
GPIO_INITS = ("HAL_GPIO_Init", "LL_GPIO_Init")


@dataclass(frozen=True)
class PinConfig:
    port: str  # "GPIOB"
    pin: str  # "PB6"
    mode: str  # "input" | "output" | "af" | "analog"
    af: int | None  # for an AF mode
    af_macro: str  # "GPIO_AF4_I2C1", or "" (a number, or not given)
    owner: str  # "I2C1", "GPIO output", "AF5" (an AF no signal of the pin has)...
    where: Where
    function: str  # the configuring function's USR
    via: str  # "HAL_GPIO_Init", "LL_GPIO_SetAFPin_0_7", "GPIOB->AFR[0]"
    offset: int
    all_pins: bool = False  # one configuration of the port's 16 pins (GPIO_PIN_All)

    @property
    def drives(self) -> bool:
        return self.mode in ("af", "output")


@dataclass(frozen=True)
class Enable:
    block: str  # "GPIOB", "I2C1"
    function: str
    offset: int
    where: Where
    how: str  # the macro, call or register write


@dataclass
class Chip:
    data: PinData | None = None
    skipped: str = ""  # why the pin checks did not run, when there is something to check
    configs: list[PinConfig] = field(default_factory=list)
    enables: list[Enable] = field(default_factory=list)
    gpio_inits: list[tuple[str, Where, str, int]] = field(default_factory=list)  # port, ...


def port_pin(port: str, bit: int) -> str:
    return f"P{_PORT.match(port).group(1)}{bit}"  # type: ignore[union-attr]


def _port(names: tuple[str, ...]) -> str | None:
    return next((n for n in names if _PORT.match(n)), None)


def _af_name(names: tuple[str, ...]) -> str:
    return next((n for n in names if af_macro(n)), "")


def load_chip(program: Program) -> Chip:
    cfg = program.config
    chip = Chip(enables=clock_enables(program))
    configs = list(_configs(program))
    chip.gpio_inits = [(c.port, c.where, c.function, c.offset) for c in configs]
    if cfg.mcu is None:
        if configs:
            chip.skipped = ("no target part: set [target] mcu in brickguard.toml (e.g. "
                            '"STM32F407VGTx") or keep the project\'s CubeMX .ioc beside it')
        chip.configs = configs
        return chip
    if cfg.pin_data is None:
        chip.skipped = ("no pin data: set [target] pin_data to the folder of ST's "
                        "STM32_open_pin_data (or $BRICKGUARD_PIN_DATA)")
        chip.configs = configs
        return chip
    try:
        chip.data = load_pin_data(Path(cfg.pin_data), cfg.mcu, cfg.vendor,
                                  pin_cache_dir(cfg.root))
    except (ConfigError, OSError) as exc:
        chip.skipped = str(exc)
    chip.configs = [_owned(c, chip.data) for c in configs]
    return chip


def _owned(c: PinConfig, data: PinData | None) -> PinConfig:
    if c.mode != "af" or c.af_macro or data is None:
        return c
    for s in data.pins.get(c.pin, []):
        if s.af == c.af:
            return replace(c, owner=s.name.split("_")[0])
    return c


def _configs(program: Program):
    for call in program.hw_calls:
        if call.callee in GPIO_INITS and len(call.args) >= 2:
            port = _port(call.args[0].names)
            pin, mode = call.field("Pin", 1), call.field("Mode", 1)
            if port is None or pin is None or pin.value is None or mode is None or (
                    mode.value is None):
                continue
            kind = MODES[mode.value & 3]
            alt = call.field("Alternate", 1) if kind == "af" else None
            af = alt.value if alt is not None else None
            if kind == "af" and af is None:
                continue
            macro = _af_name(alt.names) if alt is not None else ""
            owner = _owner(kind, af, macro)
            for bit in range(16):
                if pin.value >> bit & 1:
                    yield PinConfig(port, port_pin(port, bit), kind, af, macro, owner,
                                    call.where, call.function, call.callee, call.offset,
                                    pin.value & 0xFFFF == 0xFFFF)
        elif call.callee.startswith("LL_GPIO_SetAFPin_") and len(call.args) == 3:
            port, pin, alt = _port(call.args[0].names), call.args[1], call.args[2]
            if port is None or pin.value is None or alt.value is None:
                continue
            for bit in range(16):
                if pin.value >> bit & 1:
                    yield PinConfig(port, port_pin(port, bit), "af", alt.value, "",
                                    f"AF{alt.value}", call.where, call.function, call.callee,
                                    call.offset)
    for r in program.registers:
        m = re.fullmatch(r"AFR\[([01])\]", r.register)
        if m is None or not _PORT.match(r.block) or r.kind not in ("write", "set"):
            continue
        if r.value is None or r.value.value is None:
            continue
        for nibble in range(8):
            af = r.value.value >> (4 * nibble) & 0xF
            if af:
                bit = int(m.group(1)) * 8 + nibble
                yield PinConfig(r.block, port_pin(r.block, bit), "af", af, "", f"AF{af}",
                                r.where, r.function, f"{r.block}->{r.register}", r.offset)


def _owner(kind: str, af: int | None, macro: str) -> str:
    if kind == "af":
        got = af_macro(macro) if macro else None
        return got[1] if got else f"AF{af}"
    return "GPIO output" if kind == "output" else f"GPIO {kind}"


def clock_enables(program: Program) -> list[Enable]:
    """Every peripheral clock enable in the code: the HAL macros (behind project aliases too),
    the LL calls and constant writes that set an RCC enable bit."""
    out = []
    for m in program.macro_uses:
        for hit in m.hits:
            g = _ENABLE.match(hit)
            if g:
                out.append(Enable(g.group(1), m.function, m.offset, m.where, hit))
    for call in program.hw_calls:
        if call.callee.endswith("_EnableClock") and call.args:
            for n in call.args[0].names:
                g = _LL_PERIPH.match(n)
                if g:
                    out.append(Enable(g.group(1), call.function, call.offset, call.where,
                                      f"{call.callee}({n})"))
    for r in program.registers:
        if r.block == "RCC" and r.register.endswith("ENR") and r.kind in ("write", "set"):
            for n in (r.value.names if r.value else ()):
                g = _RCC_BIT.match(n)
                if g:
                    out.append(Enable(g.group(1), r.function, r.offset, r.where,
                                      f"RCC->{r.register} |= {n}"))
    return out
