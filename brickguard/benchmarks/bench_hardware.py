"""Benchmark: the hardware-truth rules (BG3xx pins and clocks, BG51x stack depth) on ST's own
STM32F4-Discovery examples, clean and mutated; and how fast one part's pin data loads.

Run from the repository root:

    .venv/bin/python brickguard/benchmarks/bench_hardware.py [--quick] [--only UART] [--format json]

The examples run on real boards, so every pin, clock and stack configuration in them must check
clean: any BG3xx/BG51x warning or error there is a false positive. Then one value at a time is
mutated, as an assistant's draft would get it wrong, and each mutation must be reported by the
rule that owns it (recall):

* ``wrong-af``: an AF macro in the example's main.h (``GPIO_AF4_I2C1``) becomes the next number,
  as a literal (the macro for it does not exist in the header);
* ``other-chip-af``: a pin and AF the same peripheral has on another STM32F4 die (ST's pin
  data for the F401, F411, F412, F413, F446, F469) but not on this F407: pin, port and AF
  defines in main.h are moved there;
* ``pin-twice``: a GPIO output set up on the first AF pin, in a function added to the MSP file;
* ``plln``: ``PLLN = 336`` becomes 500; ``apb1``: ``RCC_HCLK_DIV4`` for APB1 becomes
  ``RCC_HCLK_DIV2`` (84 MHz); ``latency``: ``FLASH_LATENCY_5`` becomes ``FLASH_LATENCY_4``;
* ``stack``: the linker script's ``_Min_Stack_Size`` becomes 0x100 (256 bytes).

Set-up of each example (a brickguard.toml in a temporary folder): part STM32F407VGTx, ST's
pin data, the example's Inc/, the HAL, CMSIS device and core headers, STM32F407xx and
USE_HAL_DRIVER; the stack is read from its STM32CubeIDE linker script and gcc compiles with
CubeIDE's flags for the board (-O0 -mcpu=cortex-m4 -mthumb -mfloat-abi=hard
-mfpu=fpv4-sp-d16). The board header stm32f4_discovery.h is not in the firmware folder: this
script writes a stand-in declaring the BSP calls the examples make (LEDs, the user button), so
gcc can compile them; the BSP's functions have no definition, so they count 0 in the stack. For
the stack the HAL sources of the modules the example calls are analysed with it (their frames and
calls are part of every entry's depth). The pin and clock mutations run the BG30x/BG31x rules
only, on the example's own sources.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
import time
import timeit
from dataclasses import dataclass, field
from pathlib import Path

from brickguard.analyze import analyze
from brickguard.chip.pins import load_pin_data
from brickguard.config import load_config

HERE = Path(__file__).resolve().parent
FIRMWARE = HERE.parents[1].parent / "shared" / "firmware"
DEMOS = FIRMWARE / "stm32f4/demos/Projects/STM32F4-Discovery/Examples"
PINS = FIRMWARE / "pins" / "stm32"
MCU = "STM32F407VGTx"
OTHER_PARTS = ("STM32F401VCTx", "STM32F411VETx", "STM32F412VGTx", "STM32F413VHTx",
               "STM32F446VETx", "STM32F469VITx")
GCC_FLAGS = ["-O0", "-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"]
HW = ("BG30", "BG31", "BG32", "BG51")
OWNER = {"wrong-af": "BG301", "other-chip-af": "BG301", "pin-twice": "BG303",
         "plln": "BG310", "apb1": "BG310", "latency": "BG311", "stack": "BG510"}
BSP = """\
/* Written by brickguard/benchmarks/bench_hardware.py: a stand-in for the STM32F4-Discovery
   BSP header (absent from ../shared/firmware), declaring what the examples call. */
#ifndef STM32F4_DISCOVERY_H
#define STM32F4_DISCOVERY_H
#include "stm32f4xx_hal.h"
typedef enum { LED4 = 0, LED3 = 1, LED5 = 2, LED6 = 3 } Led_TypeDef;
typedef enum { BUTTON_KEY = 0 } Button_TypeDef;
typedef enum { BUTTON_MODE_GPIO = 0, BUTTON_MODE_EXTI = 1 } ButtonMode_TypeDef;
#define KEY_BUTTON_PIN GPIO_PIN_0
#define KEY_BUTTON_GPIO_PORT GPIOA
#define KEY_BUTTON_EXTI_IRQn EXTI0_IRQn
void BSP_LED_Init(Led_TypeDef Led);
void BSP_LED_On(Led_TypeDef Led);
void BSP_LED_Off(Led_TypeDef Led);
void BSP_LED_Toggle(Led_TypeDef Led);
void BSP_PB_Init(Button_TypeDef Button, ButtonMode_TypeDef Mode);
uint32_t BSP_PB_GetState(Button_TypeDef Button);
#endif
"""
BASE_HAL = ("stm32f4xx_hal.c", "stm32f4xx_hal_cortex.c", "stm32f4xx_hal_rcc.c",
            "stm32f4xx_hal_gpio.c", "stm32f4xx_hal_dma.c", "stm32f4xx_hal_pwr.c")


def calibration() -> float:
    """Seconds for 1M steps of an empty Python loop: the machine's speed just now."""
    return min(timeit.repeat("for i in range(10): pass", number=100000, repeat=5))


@dataclass
class Project:
    name: str
    src: Path
    inc: Path
    ld: Path | None


@dataclass
class Result:
    findings: list = field(default_factory=list)  # (rule, level, file, line, message)
    seconds: float = 0.0


def projects() -> list[Project]:
    out = []
    for src in sorted(DEMOS.rglob("Src")):
        p = src.parent
        if not (p / "Inc").is_dir():
            continue
        lds = sorted((p / "STM32CubeIDE").glob("*.ld")) if (p / "STM32CubeIDE").is_dir() else []
        name = p.relative_to(DEMOS).as_posix()
        out.append(Project(name, src, p / "Inc", lds[0] if lds else None))
    return out


def hal_sources(project_src: Path) -> list[Path]:
    """The HAL driver files of the modules the example calls (HAL_I2C_... -> hal_i2c.c)."""
    hal = FIRMWARE / "stm32f4/hal/Src"
    text = " ".join(f.read_text(errors="replace") for f in project_src.glob("*.c"))
    mods = {m.lower() for m in re.findall(r"\bHAL_([A-Z0-9]+)(?:Ex)?_\w+\s*\(", text)}
    files = [hal / f for f in BASE_HAL]
    for m in sorted(mods):
        for name in (f"stm32f4xx_hal_{m}.c", f"stm32f4xx_hal_{m}_ex.c"):
            if (hal / name).is_file() and hal / name not in files:
                files.append(hal / name)
    return files


def run(project: Project, *, stack: bool, edits: dict[str, tuple[str, str]] | None = None,
        append: dict[str, str] | None = None, select: tuple[str, ...] = HW) -> Result:
    """Analyse a copy of the example (with ``edits``: file name -> (old, new) applied once)."""
    with tempfile.TemporaryDirectory(prefix="bg-hw-") as tmp:
        t = Path(tmp)
        shutil.copytree(project.src, t / "Src")
        shutil.copytree(project.inc, t / "Inc")
        (t / "bsp").mkdir()
        (t / "bsp" / "stm32f4_discovery.h").write_text(BSP)
        ld = None
        if project.ld is not None:
            ld = t / project.ld.name
            shutil.copyfile(project.ld, ld)
        for name, (old, new) in (edits or {}).items():
            path = ld if name == "ld" else next(t.rglob(name))
            text = path.read_text(errors="replace")
            assert old in text, (project.name, name, old)
            path.write_text(text.replace(old, new, 1))
        for name, extra in (append or {}).items():
            path = next(t.rglob(name))
            path.write_text(path.read_text(errors="replace") + extra)
        include = [t / "bsp", t / "Inc", FIRMWARE / "stm32f4/hal/Inc",
                   FIRMWARE / "stm32f4/cmsis_device/Include",
                   FIRMWARE / "cmsis_core/CMSIS/Core/Include"]
        toml = (
            f'[target]\nmcu = "{MCU}"\npin_data = {json.dumps(str(PINS))}\n'
            f"[build]\ninclude = {json.dumps([str(p) for p in include])}\n"
            'defines = ["STM32F407xx", "USE_HAL_DRIVER"]\n'
            f"flags = {json.dumps(GCC_FLAGS[3:])}\n"
            f"[stack]\nenabled = {'true' if stack and ld else 'false'}\n"
            f"flags = {json.dumps(GCC_FLAGS)}\n"
            + (f"linker_script = {json.dumps(str(ld))}\n" if ld else "")
            + f"[rules]\nselect = {json.dumps(list(select))}\n"
        )
        (t / "brickguard.toml").write_text(toml)
        cfg = load_config(t / "brickguard.toml")
        sources = [t / "Src"] + (hal_sources(project.src) if stack and ld else [])
        start = time.perf_counter()
        res = analyze(sources, cfg)
        seconds = time.perf_counter() - start
        out = [(f.rule, f.level.value, Path(f.location.file).name, f.location.line, f.message)
               for f in res.findings if f.rule.startswith(HW)]
        return Result(out, seconds)


def af_defines(project: Project) -> list[tuple[str, str, int, str]]:
    """main.h's AF defines: (macro name, AF macro, AF number, peripheral)."""
    text = (project.inc / "main.h").read_text(errors="replace")
    return [(m.group(1), m.group(2), int(m.group(3)), m.group(4)) for m in re.finditer(
        r"#define\s+(\w+_AF)\s+(GPIO_AF(\d+)_(\w+))", text)]


def other_chip_move(project: Project, f407, others) -> list[tuple[str, str]] | None:
    """Edits moving the first AF signal of main.h to a pin/AF another die has for it."""
    text = (project.inc / "main.h").read_text(errors="replace")
    for name, _, _, inst in af_defines(project):
        stem = name[: -len("_AF")]
        pin_m = re.search(rf"#define\s+{stem}_PIN\s+(GPIO_PIN_\d+)", text)
        port_m = re.search(rf"#define\s+{stem}_GPIO_PORT\s+(GPIO[A-K])", text)
        if not (pin_m and port_m):
            continue
        for other in others:
            for pin, signals in sorted(other.pins.items()):
                for s in signals:
                    if s.af is None or not s.name.startswith(inst + "_") or pin not in f407.pins:
                        continue
                    if any(x.af == s.af for x in f407.pins[pin]):
                        continue  # the F407 has that AF there (for something): not this mutation
                    port, bit = f"GPIO{pin[1]}", pin[2:]
                    return [(pin_m.group(0), f"#define {stem}_PIN GPIO_PIN_{bit}"),
                            (port_m.group(0), f"#define {stem}_GPIO_PORT {port}"),
                            (f"{name} ", f"{name} (0x{s.af:X}U) /* {other.mcu} {s.name} */ //")]
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the first 6 examples only")
    ap.add_argument("--only", default="", help="the examples whose name contains this")
    ap.add_argument("--format", choices=("text", "json"), default="text")
    args = ap.parse_args()
    if not DEMOS.is_dir() or not PINS.is_dir():
        print(f"skipped: {FIRMWARE} (the examples, ST's pin data) is absent")
        return 0
    print(f"calibration: {calibration():.4f}s for 1M loop steps (min of 5)")
    # -- pin data load time -----------------------------------------------------------------------
    with tempfile.TemporaryDirectory() as cache:
        t0 = time.perf_counter()
        f407 = load_pin_data(PINS, MCU, cache_dir=Path(cache))
        cold = time.perf_counter() - t0
        warm = min(timeit.repeat(lambda: load_pin_data(PINS, MCU, cache_dir=Path(cache)),
                                 number=1, repeat=5))
    print(f"pin data of {MCU}: {cold * 1000:.0f} ms from ST's XML (no cache), "
          f"{warm * 1000:.0f} ms from the cache (min of 5); target < 500 ms")
    others = [load_pin_data(PINS, p) for p in OTHER_PARTS]
    todo = [p for p in projects() if args.only in p.name]
    todo = todo[:6] if args.quick else todo
    clean_fp, notes, rows = [], [], []
    tried = hit = 0
    misses = []
    stack_need: dict[str, int | None] = {}
    total_s = 0.0
    for p in todo:
        r = run(p, stack=True)
        total_s += r.seconds
        fp = [f for f in r.findings if f[1] != "note"]
        clean_fp += [(p.name, *f) for f in fp]
        notes += [(p.name, *f) for f in r.findings if f[1] == "note"]
        mutations: dict[str, dict] = {}
        main_c = (p.src / "main.c").read_text(errors="replace")
        defs = af_defines(p)
        if defs:
            name, macro, n, _ = defs[0]
            mutations["wrong-af"] = {"edits": {"main.h": [(f"{name} ", f"{name} ({n + 1}U) //")]}}
            move = other_chip_move(p, f407, others)
            if move:
                mutations["other-chip-af"] = {"edits": {"main.h": move}}
            msp = next(p.src.glob("*msp.c"), None)
            text = (p.inc / "main.h").read_text(errors="replace")
            stem = name[: -len("_AF")]
            if msp is not None and f"{stem}_PIN" in text:
                mutations["pin-twice"] = {"append": {msp.name: (
                    f"\nvoid bench_led_on_{stem.lower()}(void)\n{{\n  GPIO_InitTypeDef g = {{0}};\n"
                    f"  g.Pin = {stem}_PIN;\n  g.Mode = GPIO_MODE_OUTPUT_PP;\n"
                    f"  HAL_GPIO_Init({stem}_GPIO_PORT, &g);\n}}\n")}}
        if "PLLN = 336" in main_c:
            mutations["plln"] = {"edits": {"main.c": [("PLLN = 336", "PLLN = 500")]}}
        m = re.search(r"APB1CLKDivider\s*=\s*RCC_HCLK_DIV4", main_c)
        if m:
            mutations["apb1"] = {"edits": {"main.c": [(m.group(0),
                                                        "APB1CLKDivider = RCC_HCLK_DIV2")]}}
        if "FLASH_LATENCY_5" in main_c:
            mutations["latency"] = {"edits": {"main.c": [("FLASH_LATENCY_5", "FLASH_LATENCY_4")]}}
        if p.ld is not None and "_Min_Stack_Size = 0x400" in p.ld.read_text(errors="replace"):
            mutations["stack"] = {"edits": {"ld": [("_Min_Stack_Size = 0x400",
                                                    "_Min_Stack_Size = 0x100")]}}
        got = {}
        for kind, spec in mutations.items():
            mr = run_edits(p, spec.get("edits", {}), spec.get("append"), kind)
            total_s += mr.seconds
            want = OWNER[kind]
            ok = any(f[0] == want for f in mr.findings)
            tried += 1
            hit += ok
            got[kind] = ok
            if not ok:
                misses.append((p.name, kind, [f[:2] for f in mr.findings]))
            if kind == "stack":
                need = next((re.search(r"needs up to (\d+) bytes", f[4]) for f in mr.findings
                             if f[0] == "BG510"), None)
                got["stack"] = ok
                stack_need[p.name] = int(need.group(1)) if need else None
        rows.append((p.name, len(fp), got))
    if args.format == "json":
        print(json.dumps({"examples": len(todo), "false_positives": clean_fp, "notes": notes,
                          "main_stack_need": stack_need,
                          "mutations": tried, "reported": hit, "misses": misses,
                          "pin_load_ms": {"cold": cold * 1000, "warm": warm * 1000}}, indent=2))
        return 0
    print(f"\n{'example':46} {'FP':>3} {'MSP need':>8}  mutations reported (+) or missed (-)")
    for name, fp, got in rows:
        marks = " ".join(f"{k}{'+' if v else '-'}" for k, v in got.items())
        need = stack_need.get(name)
        print(f"{name:46} {fp:>3} {need if need else '-':>8}  {marks}")
    print(f"\nclean examples: {len(todo)}, false positives (BG3xx/BG51x warnings and errors): "
          f"{len(clean_fp)}; notes: {len(notes)}")
    for f in clean_fp[:20]:
        print("  FP", f)
    for f in sorted({n[1:2] + n[4:5] for n in notes})[:10]:
        print("  note", f)
    print(f"mutations reported by their rule: {hit}/{tried} = recall {hit / max(tried, 1):.2f}")
    for miss in misses:
        print("  missed", miss)
    print(f"analysis time, all runs: {total_s:.1f} s")
    return 0


def run_edits(p: Project, edits: dict[str, list[tuple[str, str]]], append: dict | None,
              kind: str) -> Result:
    """One mutation: the pin and clock ones run BG30x/BG31x on the example's own sources."""
    merged: dict[str, tuple[str, str]] = {}
    for fname, changes in edits.items():
        if fname == "ld":
            path = p.ld
        else:
            path = next(q / fname for q in (p.src, p.inc) if (q / fname).is_file())
        old = path.read_text(errors="replace")  # type: ignore[union-attr]
        new = old
        for a, b in changes:
            assert a in new, (p.name, fname, a)
            new = new.replace(a, b, 1)
        merged[fname] = (old, new)
    stack = kind == "stack"
    return run(p, stack=stack, edits=merged, append=append,
               select=("BG51",) if stack else ("BG30", "BG31"))


if __name__ == "__main__":
    sys.exit(main())
