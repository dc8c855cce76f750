"""BG304: a peripheral instance the part does not have (UART7 on an STM32F407).

Instance names are read where the code uses them (``hspi.Instance = SPI4``, behind project
aliases such as ``#define SPIx SPI4`` too), in clock enables (``__HAL_RCC_SPI4_CLK_ENABLE``) and
in AF macros (``GPIO_AF5_SPI4``). A name counts as a peripheral when some part in the vendor's
pin data has an instance of that name, and is reported when the target part has none.
"""

from __future__ import annotations

from collections.abc import Iterable

from brickguard.chip.gpio import _ENABLE
from brickguard.chip.pins import af_macro
from brickguard.config import Config
from brickguard.findings import Finding, Level
from brickguard.program import Program
from brickguard.rules.base import Rule
from brickguard.rules.messages import here


def _instances(hit: str) -> list[str]:
    m = _ENABLE.match(hit)
    if m:
        return [m.group(1)]
    got = af_macro(hit)
    return [got[1]] if got else [hit]


def check(program: Program, config: Config) -> Iterable[Finding]:
    data = program.chip.data
    if data is None:
        return
    known, has = set(data.known_instances), set(data.instances)
    seen = set()
    for m in sorted(program.macro_uses, key=lambda m: (m.where.file, m.offset)):
        for hit in m.hits:
            for name in _instances(hit):
                if name in known and name not in has and (name, m.where) not in seen:
                    seen.add((name, m.where))
                    same = sorted((i for i in has if i.rstrip("0123456789") ==
                                   name.rstrip("0123456789")), key=lambda i: (len(i), i))
                    others = f"; it has {', '.join(same)}" if same else ""
                    via = f" (through {m.name})" if m.name != hit else ""
                    yield Finding(
                        "BG304", RULE.level,
                        f"{data.mcu} has no {name}{others}: {hit}{via} names a peripheral of "
                        f"another part",
                        here(m.where, f"{m.name} used here"))


RULE = Rule(
    id="BG304",
    title="Peripheral instance that this part does not have",
    level=Level.error,
    rationale=(
        "Device headers of a family often define every instance of the largest part, and "
        "drafted code picks UART7 or SPI4 from another board: on this part the address is "
        "unmapped (a bus fault) or the clock bit does nothing."
    ),
    instead="Use an instance this part has (the message lists them), or name the right part.",
    example_bad=(
        "/* built with -DSTM32F429xx (whose header has UART7), for an STM32F407VGTx board */\n"
        "void clocks(void) { __HAL_RCC_UART7_CLK_ENABLE(); }"
    ),
    example_good=(
        "void clocks(void) { __HAL_RCC_UART4_CLK_ENABLE(); }"
    ),
    check=check,
)
