"""BG310: a clock the code's constant RCC set-up gives that is out of the part's range: a PLL
factor, the PLL input, the VCO, SYSCLK (per voltage scale), HCLK, PCLK1 or PCLK2 (chip/clock.py;
the limits are data/chips/stm32f4_clocks.toml, each with its reference-manual section)."""

from __future__ import annotations

from collections.abc import Iterable

from brickguard.config import Config
from brickguard.findings import Finding, Level
from brickguard.program import Program
from brickguard.rules.base import Rule
from brickguard.rules.messages import here


def clock_findings(program: Program, rule: Rule) -> Iterable[Finding]:
    """The findings of one clock rule (BG310 or BG311), once per place and message."""
    seen = set()
    for tree in program.clock_trees:
        ref = tree.line.source.split(" ", 1)[0]
        for p in tree.problems:
            if p.rule != rule.id or (p.where, p.what) in seen:
                continue
            seen.add((p.where, p.what))
            freqs = ", ".join(f"{k} {v / 1e6:g} MHz" for k, v in tree.freqs.items())
            yield Finding(rule.id, rule.level, f"{p.what} ({ref})",
                          here(p.where, f"computed: {freqs}" if freqs else "set up here"))


def check(program: Program, config: Config) -> Iterable[Finding]:
    return clock_findings(program, RULE)


_EXAMPLE_BAD = (
    "void clocks(void) { RCC_OscInitTypeDef o = {0}; RCC_ClkInitTypeDef c = {0};\n"
    "  o.OscillatorType = RCC_OSCILLATORTYPE_HSE; o.HSEState = RCC_HSE_ON;\n"
    "  o.PLL.PLLState = RCC_PLL_ON; o.PLL.PLLSource = RCC_PLLSOURCE_HSE; o.PLL.PLLM = 8;\n"
    "  o.PLL.PLLN = 336; o.PLL.PLLP = RCC_PLLP_DIV2; o.PLL.PLLQ = 7; HAL_RCC_OscConfig(&o);\n"
    "  c.ClockType = RCC_CLOCKTYPE_SYSCLK | RCC_CLOCKTYPE_HCLK | RCC_CLOCKTYPE_PCLK1 | "
    "RCC_CLOCKTYPE_PCLK2;\n  c.SYSCLKSource = RCC_SYSCLKSOURCE_PLLCLK; "
    "c.AHBCLKDivider = RCC_SYSCLK_DIV1;\n  c.APB1CLKDivider = RCC_HCLK_DIV2; "
    "c.APB2CLKDivider = RCC_HCLK_DIV2;\n  HAL_RCC_ClockConfig(&c, FLASH_LATENCY_5); }"
)


RULE = Rule(
    id="BG310",
    title="Clock out of the part's range (PLL factors, VCO, SYSCLK, AHB, APB1, APB2)",
    level=Level.error,
    rationale=(
    "The RCC accepts any divider and multiplier the fields can hold: a PLLN copied from "
    "another part's 180 MHz set-up, or an APB1 prescaler that leaves PCLK1 at 84 MHz on an "
    "F407, compiles and boots, then peripherals run out of specification: UART baud rates "
    "drift, the flash and the core fail intermittently, the board locks up when warm."
    ),
    instead=(
    "Keep PLL input 1-2 MHz, the VCO in range, and SYSCLK/HCLK/PCLK1/PCLK2 within the "
    "datasheet's maxima for the voltage scale used (CubeMX's clock tree shows them)."
    ),
    example_bad=_EXAMPLE_BAD,
    example_good=_EXAMPLE_BAD.replace("APB1CLKDivider = RCC_HCLK_DIV2",
                                      "APB1CLKDivider = RCC_HCLK_DIV4"),
    check=check,
)
