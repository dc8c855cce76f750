"""Benchmark: the precision of the interrupt-race rules (BG1xx) on real firmware.

Run from the repository root:

    .venv/bin/python brickguard/benchmarks/bench_real_code.py [--check] [--format json]

It checks, with the BG1xx rules only, every ST example project for the STM32F4-Discovery board,
the STM32F4 HAL's sources and the FreeRTOS kernel in ``../shared/firmware`` (see its README),
and compares each finding with ``real_code_labels.toml``: a person read the code around every
finding and labelled it true (an interleaving that breaks the program exists) or false, with
the reason and, for a false one, the cause. It prints, per rule, the findings, how many are
labelled true and false, how many have no label, and the precision (true / labelled); then the
false findings by cause, and how many each fix alone would remove (a label's ``also`` lists
further causes that would each remove it too).

How each target is set up (a brickguard.toml in a temporary folder, the real headers on the
include path, target thumbv7em-none-eabi, 32-bit words, the cmsis profile; FreeRTOS adds the
freertos profile):

* an ST project, built as its STM32CubeIDE project builds it: its own Src/ together with the
  HAL driver sources the project links (``STM32CubeIDE/.project``: ``stm32f4xx_hal_uart.c``...,
  from the HAL's Src/), so the HAL's handlers and the project's callbacks are one program; its
  Inc/ (its own stm32f4xx_hal_conf.h), the HAL's Inc/, the CMSIS device and core headers;
  defines STM32F407xx and USE_HAL_DRIVER. The board's BSP (stm32f4_discovery.c and .h) is
  absent by design: the sources the project links that are not there are counted apart.
* the HAL: every file of hal/Src, with the HAL's own stm32f4xx_hal_conf_template.h copied in
  as stm32f4xx_hal_conf.h (every module enabled, so every driver is checked).
* FreeRTOS: the kernel's .c files, portable/GCC/ARM_CM4F and MemMang/heap_4.c. The kernel
  ships no FreeRTOSConfig.h: this script writes a minimal one for a Cortex-M4F at 168 MHz
  (FREERTOS_CONFIG below) into the temporary folder.

Headers that are not there (stm32f4_discovery.h; the C library's stdio.h, stdlib.h, string.h,
as on many machines) are each reported as a BG000 error, counted apart from the BG1xx
findings; brickguard goes on and checks the rest of the file.

A finding's key is (rule, path relative to the firmware folder, function, symbol, line). The
same key reported by several targets (a HAL source every project links) is one finding, with
one label: precision counts distinct sites, and ``--list`` says how many targets reported each. A
label matches on the first four, and the line only chooses between labels that tie, so labels
survive code above them moving. ``--check`` exits 1 when a finding has no label or a true label
matches no finding (a true finding lost); a false label that matches nothing is a fixed false
alarm, printed apart (remove its label), and does not fail the check.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
import time
import tomllib
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from brickguard.analyze import analyze
from brickguard.config import load_config

HERE = Path(__file__).resolve().parent
FIRMWARE = HERE.parents[1].parent / "shared" / "firmware"  # benchmarks -> brickguard -> repo
LABELS = HERE / "real_code_labels.toml"
RULES = ("BG101", "BG102", "BG103", "BG104", "BG105", "BG106", "BG107", "BG110", "BG111",
         "BG112")
CAUSES = (
    "field-blind", "index-blind", "timeline", "atomic-store", "volatile-field",
    "whole-struct-lock", "asm-handler", "init-disable", "rtos-handle", "other",
)
DEMOS = "stm32f4/demos/Projects/STM32F4-Discovery/Examples"

FREERTOS_CONFIG = """\
/* Written by brickguard/benchmarks/bench_real_code.py: a minimal FreeRTOSConfig.h for a
   Cortex-M4F (STM32F407) at 168 MHz, the settings of FreeRTOS's own CM4F demos. */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H
#include <stdint.h>
extern uint32_t SystemCoreClock;
#define configUSE_PREEMPTION                    1
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 1
#define configUSE_IDLE_HOOK                     0
#define configUSE_TICK_HOOK                     0
#define configCPU_CLOCK_HZ                      ( SystemCoreClock )
#define configTICK_RATE_HZ                      ( ( TickType_t ) 1000 )
#define configMAX_PRIORITIES                    ( 7 )
#define configMINIMAL_STACK_SIZE                ( ( uint16_t ) 128 )
#define configTOTAL_HEAP_SIZE                   ( ( size_t ) ( 75 * 1024 ) )
#define configMAX_TASK_NAME_LEN                 ( 16 )
#define configUSE_16_BIT_TICKS                  0
#define configUSE_MUTEXES                       1
#define configUSE_RECURSIVE_MUTEXES             1
#define configUSE_COUNTING_SEMAPHORES           1
#define configQUEUE_REGISTRY_SIZE               8
#define configCHECK_FOR_STACK_OVERFLOW          0
#define configUSE_MALLOC_FAILED_HOOK            0
#define configSUPPORT_DYNAMIC_ALLOCATION        1
#define configUSE_TIMERS                        1
#define configTIMER_TASK_PRIORITY               ( 2 )
#define configTIMER_QUEUE_LENGTH                10
#define configTIMER_TASK_STACK_DEPTH            ( configMINIMAL_STACK_SIZE * 2 )
#define INCLUDE_vTaskPrioritySet                1
#define INCLUDE_uxTaskPriorityGet               1
#define INCLUDE_vTaskDelete                     1
#define INCLUDE_vTaskSuspend                    1
#define INCLUDE_vTaskDelayUntil                 1
#define INCLUDE_vTaskDelay                      1
#define INCLUDE_xTaskGetSchedulerState          1
#define INCLUDE_xTimerPendFunctionCall          1
#define configPRIO_BITS                         4
#define configLIBRARY_LOWEST_INTERRUPT_PRIORITY         15
#define configLIBRARY_MAX_SYSCALL_INTERRUPT_PRIORITY    5
#define configKERNEL_INTERRUPT_PRIORITY \\
    ( configLIBRARY_LOWEST_INTERRUPT_PRIORITY << ( 8 - configPRIO_BITS ) )
#define configMAX_SYSCALL_INTERRUPT_PRIORITY \\
    ( configLIBRARY_MAX_SYSCALL_INTERRUPT_PRIORITY << ( 8 - configPRIO_BITS ) )
#define configASSERT( x ) if( ( x ) == 0 ) { taskDISABLE_INTERRUPTS(); for( ;; ); }
#define vPortSVCHandler    SVC_Handler
#define xPortPendSVHandler PendSV_Handler
#define xPortSysTickHandler SysTick_Handler
#endif
"""


@dataclass(frozen=True)
class Target:
    name: str  # shown in the table, e.g. "UART/UART_TwoBoards_ComIT"
    sources: list[Path]
    include: list[Path]
    profiles: tuple[str, ...] = ("cmsis",)
    write: tuple[tuple[str, str | Path], ...] = ()  # (file name, text or a file to copy)
    missing: tuple[str, ...] = ()  # sources the project links that are not in the firmware


@dataclass
class Found:
    rule: str
    path: str  # relative to the firmware folder
    function: str  # the enclosing function; "" at file scope
    symbol: str
    line: int
    message: str
    target: str

    def key(self) -> str:
        return f"{self.rule} {self.path}:{self.line} {self.function or '-'} `{self.symbol}`"


def targets(fw: Path) -> list[Target]:
    common = [fw / "stm32f4/hal/Inc", fw / "stm32f4/cmsis_device/Include",
              fw / "cmsis_core/CMSIS/Core/Include"]
    out = []
    for src in sorted((fw / DEMOS).rglob("Src")):
        project = src.parent
        if (project / "Inc").is_dir():
            name = project.relative_to(fw / DEMOS).as_posix()
            hal, missing = linked_sources(project, fw)
            out.append(Target(name, [src, *hal], [project / "Inc", *common],
                              missing=tuple(missing)))
    hal_conf = fw / "stm32f4/hal/Inc/stm32f4xx_hal_conf_template.h"
    out.append(Target("HAL (stm32f4/hal/Src)", [fw / "stm32f4/hal/Src"], common,
                      write=(("stm32f4xx_hal_conf.h", hal_conf),)))
    rtos = fw / "freertos"
    port = rtos / "portable/GCC/ARM_CM4F"
    out.append(Target(
        "FreeRTOS kernel", [*sorted(rtos.glob("*.c")), port, rtos / "portable/MemMang/heap_4.c"],
        [rtos / "include", port, fw / "stm32f4/cmsis_device/Include",
         fw / "cmsis_core/CMSIS/Core/Include"],
        profiles=("cmsis", "freertos"), write=(("FreeRTOSConfig.h", FREERTOS_CONFIG),)))
    return out


def linked_sources(project: Path, fw: Path) -> tuple[list[Path], list[str]]:
    """The C sources an ST project's STM32CubeIDE/.project links from outside its own Src/
    (the HAL drivers, found in the HAL's Src/), and the names of those not in the firmware
    (the BSP). A project with no such file is its Src/ alone."""
    path = project / "STM32CubeIDE" / ".project"
    if not path.is_file():
        return [], []
    found, missing = [], []
    for link in ET.parse(path).getroot().iter("link"):
        uri = link.findtext("locationURI") or link.findtext("location") or ""
        name = uri.rsplit("/", 1)[-1]
        if not name.endswith(".c") or "PARENT-1-PROJECT_LOC/Src/" in uri:
            continue  # the project's own sources: Src/ is built whole
        hal = fw / "stm32f4/hal/Src" / name
        if "STM32F4xx_HAL_Driver/Src/" in uri and hal.is_file():
            found.append(hal)
        else:
            missing.append(name)
    return sorted(set(found)), sorted(set(missing))


def run_target(t: Target, fw: Path, jobs: int) -> tuple[list[Found], int]:
    """The target's BG1xx findings, and how many BG000 (front-end) diagnostics it had."""
    with tempfile.TemporaryDirectory(prefix="bg-real-") as tmp:
        folder = Path(tmp)
        for name, what in t.write:
            if isinstance(what, Path):
                shutil.copyfile(what, folder / name)
            else:
                (folder / name).write_text(what, encoding="utf-8")
        include = [folder, *t.include] if t.write else t.include
        (folder / "brickguard.toml").write_text(
            "[target]\ntriple = \"thumbv7em-none-eabi\"\nword_bits = 32\n"
            f"profile = {json.dumps(list(t.profiles))}\n"
            f"[build]\ninclude = {json.dumps([str(p) for p in include])}\n"
            "defines = [\"STM32F407xx\", \"USE_HAL_DRIVER\"]\n"
            f"jobs = {jobs}\n"
            "[rules]\nselect = [\"BG000\", \"BG1\"]\n",
            encoding="utf-8",
        )
        result = analyze(t.sources, load_config(folder / "brickguard.toml"))
        scopes: dict[Path, list[tuple[int, int, str]]] = {}
        found, diagnostics = [], 0
        for f in result.findings:
            if f.rule == "BG000":
                diagnostics += 1
                continue
            if f.rule not in RULES:  # the gate's own notes (BG002/BG003): not race findings
                continue
            file = Path(f.location.file).resolve()
            if file not in scopes:  # read while the generated headers still exist
                scopes[file] = function_spans(file.read_text(encoding="utf-8", errors="replace"))
            function = next((n for a, b, n in scopes[file] if a <= f.location.line <= b), "")
            path = (file.relative_to(fw.resolve()).as_posix() if file.is_relative_to(fw.resolve())
                    else f"<generated>/{file.name}")
            found.append(Found(f.rule, path, function, symbol(f.message), f.location.line,
                               f.message, t.name))
    return found, diagnostics


def distinct(found: list[Found]) -> tuple[list[Found], Counter]:
    """One finding per site: a HAL source built into several projects reports the same
    defect in each (one defect, one label); and how many targets reported each site."""
    out: dict[tuple, Found] = {}
    reported: Counter = Counter()
    for f in found:
        key = (f.rule, f.path, f.function, f.symbol, f.line)
        out.setdefault(key, f)
        reported[key] += 1
    return list(out.values()), reported


def symbol(message: str) -> str:
    """What the finding is about: the first `quoted` text, else the first name() it gives."""
    m = re.search(r"`([^`]+)`", message) or re.search(r"(\w+)\(\)", message)
    return m.group(1) if m else ""


_NOISE = re.compile(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'"
                    r"|^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", re.S | re.M)


def function_spans(text: str) -> list[tuple[int, int, str]]:
    """(first line, last line, name) of each function defined in C source ``text``.

    A light scan, enough for firmware code: comments, strings and preprocessor lines blanked
    (newlines kept), then each top-level ``{`` whose header ends ``name(...)`` opens a function.
    """
    text = _NOISE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    spans, depth, start, header_from, name = [], 0, 0, 0, ""
    for i, ch in enumerate(text):
        if ch == "{":
            if depth == 0:
                name = _defined_name(text[header_from:i])
                start = text.count("\n", 0, i) + 1
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                if name:
                    spans.append((start, text.count("\n", 0, i) + 1, name))
                header_from = i + 1
        elif ch == ";" and depth == 0:
            header_from = i + 1
    return spans


def _defined_name(header: str) -> str:
    header = header.rstrip()
    if not header.endswith(")") or "=" in header:
        return ""
    depth = 0
    for i in range(len(header) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(header[i], 0)
        if depth == 0:
            m = re.search(r"(\w+)\s*$", header[:i])
            return m.group(1) if m else ""
    return ""


def load_labels(path: Path) -> list[dict]:
    """The labels, checked: each names rule, path, function, symbol, line, verdict, reason."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    labels = data.get("label", [])
    for n, lab in enumerate(labels, 1):
        where = f"{path.name}: label {n}"
        for key, kind in (("rule", str), ("path", str), ("function", str), ("symbol", str),
                          ("line", int), ("verdict", str), ("reason", str)):
            if not isinstance(lab.get(key), kind):
                raise ValueError(f"{where}: `{key}` missing or not a {kind.__name__}")
        if lab["rule"] not in RULES:
            raise ValueError(f"{where}: unknown rule {lab['rule']!r}")
        if lab["verdict"] not in ("true", "false"):
            raise ValueError(f"{where}: verdict must be \"true\" or \"false\"")
        if not lab["reason"].startswith(lab["verdict"] + ":"):
            raise ValueError(f"{where}: the reason must start with \"{lab['verdict']}:\"")
        if (lab["verdict"] == "false") != ("cause" in lab):
            raise ValueError(f"{where}: a false label needs a cause, a true one has none")
        if "cause" in lab and lab["cause"] not in CAUSES:
            raise ValueError(f"{where}: cause must be one of {', '.join(CAUSES)}")
        also = lab.get("also", [])
        if "also" in lab and ("cause" not in lab or not isinstance(also, list)
                              or not set(also) <= set(CAUSES) - {lab["cause"]}):
            raise ValueError(f"{where}: also must list other causes, on a false label")
        unknown = set(lab) - {"rule", "path", "function", "symbol", "line", "verdict", "reason",
                              "cause", "also"}
        if unknown:
            raise ValueError(f"{where}: unknown keys {sorted(unknown)}")
    return labels


def match(found: list[Found], labels: list[dict]) -> tuple[list, list[Found], list[dict]]:
    """Pairs (finding, label), findings with no label, labels with no finding."""
    free: dict[tuple, list[dict]] = {}
    for lab in labels:
        free.setdefault((lab["rule"], lab["path"], lab["function"], lab["symbol"]), []).append(lab)
    pairs, unlabelled = [], []
    # Exact lines first, so a shifted finding cannot take the label of one that did not move.
    order = sorted(found, key=lambda f: not any(
        lab["line"] == f.line for lab in free.get((f.rule, f.path, f.function, f.symbol), [])))
    for f in order:
        pool = free.get((f.rule, f.path, f.function, f.symbol), [])
        if not pool:
            unlabelled.append(f)
            continue
        lab = min(pool, key=lambda lab: abs(lab["line"] - f.line))
        pool.remove(lab)
        pairs.append((f, lab))
    return pairs, unlabelled, [lab for pool in free.values() for lab in pool]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--firmware", type=Path, default=FIRMWARE, help="the firmware folder")
    ap.add_argument("--labels", type=Path, default=LABELS)
    ap.add_argument("--check", action="store_true",
                    help="exit 1 when a finding is unlabelled or a true finding is lost")
    ap.add_argument("--format", choices=("text", "json"), default="text")
    ap.add_argument("--jobs", type=int, default=2, help="parser processes per target")
    ap.add_argument("--list", action="store_true", help="also print every finding and its label")
    ap.add_argument("--target", default="",
                    help="only the targets whose name contains this (a partial run: the labels "
                         "of the others show as not matched)")
    args = ap.parse_args()
    fw = args.firmware
    if not (fw / DEMOS).is_dir() or not (fw / "freertos").is_dir():
        sys.exit(f"{fw}: not the shared firmware folder (read ../shared/firmware/README.md)")
    try:
        labels = load_labels(args.labels)
    except (OSError, ValueError, tomllib.TOMLDecodeError) as e:
        sys.exit(f"labels: {e}")
    start = time.perf_counter()
    found, diagnostics = [], {}
    chosen = [t for t in targets(fw) if args.target in t.name]
    missing = Counter(name for t in chosen for name in t.missing)
    for t in chosen:
        got, diagnostics[t.name] = run_target(t, fw, args.jobs)
        found.extend(got)
    seconds = time.perf_counter() - start
    per_target = Counter(f.target for f in found)
    found, reported = distinct(found)
    pairs, unlabelled, gone = match(found, labels)
    lost = [lab for lab in gone if lab["verdict"] == "true"]
    fixed = [lab for lab in gone if lab["verdict"] == "false"]
    verdict = {id(f): lab for f, lab in pairs}

    rows = {}
    for rule in RULES:
        mine = [f for f in found if f.rule == rule]
        true = sum(1 for f in mine if verdict.get(id(f), {}).get("verdict") == "true")
        false = sum(1 for f in mine if verdict.get(id(f), {}).get("verdict") == "false")
        rows[rule] = {"findings": len(mine), "true": true, "false": false,
                      "unlabelled": len(mine) - true - false,
                      "precision": true / (true + false) if true + false else None}
    total = {k: sum(r[k] for r in rows.values()) for k in ("findings", "true", "false",
                                                            "unlabelled")}
    total["precision"] = total["true"] / (total["true"] + total["false"]) if (
        total["true"] + total["false"]) else None
    wrong = [lab for _, lab in pairs if lab["verdict"] == "false"]
    causes = Counter(lab["cause"] for lab in wrong)
    # What each fix alone would remove: the labels naming its cause first or in `also`.
    fixes = Counter(c for lab in wrong for c in {lab["cause"], *lab.get("also", [])})

    if args.format == "json":
        print(json.dumps({
            "rules": rows, "total": total, "causes": dict(causes.most_common()),
            "removed_by_fix": dict(fixes.most_common()),
            "seconds": round(seconds, 2), "targets": {
                name: {"findings": per_target.get(name, 0), "bg000": n}
                for name, n in diagnostics.items()},
            "not_built": dict(missing.most_common()),
            "unlabelled": [f.key() for f in unlabelled],
            "lost_true_findings": [_label_key(lab) for lab in lost],
            "fixed_false_alarms": [_label_key(lab) for lab in fixed],
        }, indent=2))
    else:
        print(f"{'rule':<7}{'findings':>9}{'true':>6}{'false':>7}{'unlabelled':>11}"
              f"{'precision':>11}")
        for rule, r in [*rows.items(), ("total", total)]:
            p = "-" if r["precision"] is None else f"{r['precision']:.1%}"
            print(f"{rule:<7}{r['findings']:>9}{r['true']:>6}{r['false']:>7}"
                  f"{r['unlabelled']:>11}{p:>11}")
        print("false findings by cause:",
              ", ".join(f"{c} {n}" for c, n in causes.most_common()) or "none")
        print("removed by each fix alone:",
              ", ".join(f"{c} {n}" for c, n in fixes.most_common()) or "none")
        print(f"targets {len(diagnostics)} ({sum(1 for t in diagnostics if '/' in t)} ST "
              f"projects, the HAL, FreeRTOS); BG000 diagnostics {sum(diagnostics.values())} "
              f"(missing headers: stm32f4_discovery.h, C library); {seconds:.1f} s")
        print("linked sources not in the firmware (not built):",
              ", ".join(f"{n} ({k} projects)" for n, k in missing.most_common()) or "none")
        print(f"findings are distinct sites: {sum(reported.values())} reports in all targets")
        if args.list:
            for f, lab in sorted(pairs, key=lambda p: (p[0].path, p[0].line, p[0].rule)):
                n = reported[(f.rule, f.path, f.function, f.symbol, f.line)]
                print(f"  {f.key()} [{n} target{'s' * (n > 1)}, first {f.target}]  "
                      f"{lab['reason']}")
        for f in unlabelled:
            print(f"unlabelled: {f.key()} [{f.target}]: {f.message}")
        for lab in fixed:
            print(f"fixed false alarm (its label can go): {_label_key(lab)}")
        for lab in lost:
            print(f"LOST true finding: {_label_key(lab)}: {lab['reason']}")
    if args.check and (unlabelled or lost):
        sys.exit(1)


def _label_key(lab: dict) -> str:
    return f"{lab['rule']} {lab['path']}:{lab['line']} {lab['function'] or '-'} `{lab['symbol']}`"


if __name__ == "__main__":
    main()
