"""Clock trees: what the code's constant RCC set-up gives, and the part's limits (BG310, BG311).

A tree is read from ``HAL_RCC_OscConfig(&osc)`` (oscillators and the main PLL) and
``HAL_RCC_ClockConfig(&clk, latency)`` (SYSCLK source, AHB/APB dividers, flash wait states),
their struct fields constant (``hwfacts``). ``HSE_VALUE`` is the macro as the code sees it
(``stm32f4xx_hal_conf.h``), else ``[target] hse_hz``. The PLL a ``ClockConfig`` runs on is the
last PLL-on ``OscConfig`` before it in the same function, else the one PLL-on ``OscConfig`` of
the program. The voltage scale is the ``__HAL_PWR_VOLTAGESCALING_CONFIG`` /
``HAL_PWREx_ControlVoltageScaling`` argument, else the line's reset value.

Frequencies (Hz): PLL input = source / PLLM; VCO = input x PLLN; PLL output = VCO / PLLP;
SYSCLK = the selected source; HCLK (AHB) = SYSCLK / HPRE; PCLK1/2 = HCLK / PPRE1/2. The limits
are per product line in ``data/chips/stm32f4_clocks.toml``, each citing its reference-manual
section. HAL encodings (stm32f4xx_hal_rcc.h): PLLSource HSE = 0x400000, SYSCLKSource 0 HSI,
1 HSE, 2 PLL; HPRE values 0x80-0xF0 and PPRE values 0x1000-0x1C00 are the register fields.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from brickguard.facts import HwCall, Value, Where

if TYPE_CHECKING:
    from brickguard.program import Program

LIMITS_FILE = Path(__file__).resolve().parents[1] / "data" / "chips" / "stm32f4_clocks.toml"
HSI_HZ = 16_000_000
_AHB = {0x80: 2, 0x90: 4, 0xA0: 8, 0xB0: 16, 0xC0: 64, 0xD0: 128, 0xE0: 256, 0xF0: 512}
_APB = {0x1000: 2, 0x1400: 4, 0x1800: 8, 0x1C00: 16}
_SCALE = re.compile(r"^PWR_REGULATOR_VOLTAGE_SCALE(\d)$")
_PART = re.compile(r"^(STM32F4\d\d)")


@dataclass(frozen=True)
class Line:
    name: str
    parts: list[str]
    default_scale: int
    sysclk_max: dict[str, int]
    ahb_max: int
    apb1_max: int
    apb2_max: int
    pll_in: list[float]
    vco_out: list[int]
    pllm: list[int]
    plln: list[int]
    pllp: list[int]
    pllq: list[int]
    wait_states: list[dict]
    source: str

    def required_wait_states(self, hclk_mhz: float, vdd_mv: int) -> tuple[int, list[int]] | None:
        """(wait states needed at this HCLK and supply, the ceilings of that supply range);
        -1 wait states when the HCLK is above the range's highest ceiling."""
        for ws in self.wait_states:
            lo, hi = ws["mv"]
            if lo <= vdd_mv <= hi:
                for n, ceiling in enumerate(ws["max"]):
                    if hclk_mhz <= ceiling:
                        return n, ws["max"]
                return -1, ws["max"]
        return None


@lru_cache(maxsize=1)
def lines() -> list[Line]:
    data = tomllib.loads(LIMITS_FILE.read_text(encoding="utf-8"))
    return [Line(**d) for d in data["line"]]


def line_for(part: str | None) -> Line | None:
    if not part:
        return None
    up = part.upper()
    return next((ln for ln in lines() if any(up.startswith(p) for p in ln.parts)), None)


@dataclass(frozen=True)
class Problem:
    rule: str  # BG310 (out of range) | BG311 (wait states)
    what: str  # the message
    where: Where


@dataclass
class ClockTree:
    line: Line
    clock_call: HwCall | None
    osc_call: HwCall | None
    freqs: dict[str, float] = field(default_factory=dict)  # "SYSCLK" -> Hz
    scale: int = 1
    problems: list[Problem] = field(default_factory=list)


def _v(v: Value | None) -> int | None:
    return v.value if v is not None else None


def _mhz(hz: float) -> str:
    return f"{hz / 1e6:g} MHz"


def target_part(program: Program) -> str | None:
    cfg = program.config
    if cfg.mcu:
        return cfg.mcu
    for d in cfg.defines:
        m = _PART.match(d.upper())
        if m:
            return m.group(1)
    return None


def _scale(program: Program, line: Line) -> int:
    for m in program.macro_uses:
        if "__HAL_PWR_VOLTAGESCALING_CONFIG" in m.hits and m.args:
            for n in m.args[0].names:
                if _SCALE.match(n):
                    return int(_SCALE.match(n).group(1))  # type: ignore[union-attr]
    for c in program.hw_calls:
        if c.callee == "HAL_PWREx_ControlVoltageScaling" and c.args:
            for n in c.args[0].names:
                if _SCALE.match(n):
                    return int(_SCALE.match(n).group(1))  # type: ignore[union-attr]
    return line.default_scale


def pll(osc: HwCall, hse: int | None, line: Line) -> tuple[dict[str, float], list[str]]:
    """The PLL's frequencies and what is out of range in its factors and frequencies."""
    m, n = _v(osc.field("PLL.PLLM")), _v(osc.field("PLL.PLLN"))
    p, q = _v(osc.field("PLL.PLLP")), _v(osc.field("PLL.PLLQ"))
    src = _v(osc.field("PLL.PLLSource"))
    out: dict[str, float] = {}
    bad = []
    for name, value, allowed in (("PLLM", m, line.pllm), ("PLLN", n, line.plln),
                                 ("PLLQ", q, line.pllq)):
        if value is not None and not allowed[0] <= value <= allowed[1]:
            bad.append(f"{name} = {value} is out of its range {allowed[0]}..{allowed[1]}")
    if p is not None and p not in line.pllp:
        bad.append(f"PLLP = {p} is not one of {', '.join(map(str, line.pllp))}")
    clock = {0: HSI_HZ, 0x400000: hse}.get(src) if src is not None else None
    if clock is None or not m or n is None:
        return out, bad
    out["PLL input"] = clock / m
    out["VCO"] = clock / m * n
    lo, hi = line.pll_in
    if not lo * 1e6 <= out["PLL input"] <= hi * 1e6:
        bad.append(f"the PLL input is {_mhz(out['PLL input'])} (source {_mhz(clock)} / PLLM "
                   f"{m}), outside {lo:g}-{hi:g} MHz")
    lo, hi = line.vco_out
    if not lo * 1e6 <= out["VCO"] <= hi * 1e6:
        bad.append(f"the VCO runs at {_mhz(out['VCO'])} (PLL input x PLLN {n}), outside "
                   f"{lo}-{hi} MHz")
    if p:
        out["PLL output"] = out["VCO"] / p
    return out, bad


def clock_trees(program: Program) -> list[ClockTree]:
    line = line_for(target_part(program))
    if line is None:
        return []
    cfg = program.config
    hse_value = program.constants.get("HSE_VALUE")
    hse = _v(hse_value) or cfg.hse_hz
    scale = _scale(program, line)
    calls = sorted(program.hw_calls, key=lambda c: (c.where.file, c.offset))
    oscs = [c for c in calls if c.callee == "HAL_RCC_OscConfig"
            and _v(c.field("PLL.PLLState")) == 2]
    trees = []
    for osc in oscs:
        freqs, bad = pll(osc, hse, line)
        tree = ClockTree(line, None, osc, freqs, scale)
        tree.problems = [Problem("BG310", b, osc.where) for b in bad]
        trees.append(tree)
    for clk in (c for c in calls if c.callee == "HAL_RCC_ClockConfig"):
        trees.append(_system(program, clk, oscs, hse, line, scale))
    return trees


def _system(program: Program, clk: HwCall, oscs: list[HwCall], hse: int | None, line: Line,
            scale: int) -> ClockTree:
    before = [o for o in oscs if o.function == clk.function and o.offset < clk.offset]
    osc = before[-1] if before else (oscs[0] if len(oscs) == 1 else None)
    tree = ClockTree(line, clk, osc, scale=scale)
    source = _v(clk.field("SYSCLKSource"))
    sysclk: float | None = None
    if source == 0:
        sysclk = HSI_HZ
    elif source == 1:
        sysclk = hse
    elif source == 2 and osc is not None:
        sysclk = pll(osc, hse, line)[0].get("PLL output")
    if sysclk is None:
        return tree
    f = tree.freqs
    f["SYSCLK"] = sysclk
    hpre, ppre1, ppre2 = (_v(clk.field(k)) for k in
                          ("AHBCLKDivider", "APB1CLKDivider", "APB2CLKDivider"))
    if hpre is not None:
        f["HCLK"] = sysclk / _AHB.get(hpre, 1)
        if ppre1 is not None:
            f["PCLK1"] = f["HCLK"] / _APB.get(ppre1, 1)
        if ppre2 is not None:
            f["PCLK2"] = f["HCLK"] / _APB.get(ppre2, 1)
    top = line.sysclk_max.get(str(scale))
    limits = [("SYSCLK", top, f"at voltage scale {scale}"), ("HCLK", line.ahb_max, "(AHB)"),
              ("PCLK1", line.apb1_max, "(APB1)"), ("PCLK2", line.apb2_max, "(APB2)")]
    for name, limit, why in limits:
        if name in f and limit is not None and f[name] > limit * 1e6 + 1:
            tree.problems.append(Problem(
                "BG310", f"{name} {why} is {_mhz(f[name])}: over the {line.name} limit of "
                f"{limit} MHz", clk.where))
    latency = _v(clk.args[1]) if len(clk.args) > 1 else None
    vdd = program.config.vdd_mv
    if "HCLK" in f and latency is not None:
        need = line.required_wait_states(f["HCLK"] / 1e6, vdd)
        if need is not None and need[0] < 0:
            tree.problems.append(Problem(
                "BG310", f"HCLK {_mhz(f['HCLK'])} is over the {need[1][-1]} MHz the flash "
                f"allows at {vdd / 1000:g} V", clk.where))
        elif need is not None and latency < need[0]:
            n, ceilings = need
            tree.problems.append(Problem(
                "BG311", f"FLASH_LATENCY_{latency} at HCLK {_mhz(f['HCLK'])} and "
                f"{vdd / 1000:g} V: the flash needs {n} wait states ({latency} allow up to "
                f"{ceilings[latency] if latency < len(ceilings) else '?'} MHz)", clk.where))
    return tree
