"""Worst-case stack depth of every entry (BG510-BG512), from the cross compiler's own frame sizes.

Each translation unit is compiled once more with ``arm-none-eabi-gcc -fstack-usage`` (the
project's include paths and defines; ``[stack] flags``, default ``-O0`` and the CPU from the
target, e.g. ``-mcpu=cortex-m4 -mthumb``): gcc writes each function's frame in a ``.su`` file.
Over the program model's call graph, an entry's worst case is its frame plus the deepest callee
chain. A call through a struct field (``hdma->XferCpltCallback(hdma)``) may reach every function
the program stores into a field of that name, directly or through a function that stores its
parameter there (``HAL_DMA_RegisterCallback``: the functions its callers pass); a field never
set to anything is taken to stay NULL (the call cannot happen, it is listed as not counted). A
call through a field also set from a value not known here, or through a pointer variable or
parameter, a recursion (the cycle is named) or a frame gcc calls ``dynamic`` (alloca, a VLA)
is *unbounded*.
A callee with no definition in the program (a library, an absent BSP) counts 0 and is named.

The entries and their limits:

- ``main`` and the interrupt handlers share the main stack (MSP). Its need is main's depth plus
  the interrupt nesting the priorities allow: one handler per preemption level (known
  priorities from ``Program.priority``; NMI -2 and HardFault -1 by the architecture; all
  handlers of unknown priority as one level, as the program model takes them not to preempt
  each other), the deepest per level, each plus its exception frame (32 bytes, 104 with the FPU
  context, + 4 for alignment). The limit is ``[stack] main_stack``, else the linker script's
  ``_Min_Stack_Size``, ``__stack_size__`` / ``STACK_SIZE`` symbol, or ``.stack`` section size
  (``[stack] linker_script``, else the first ``*.ld`` in the project folder or three levels
  below it that has one).
- each task created with a constant stack (``xTaskCreate(fn, name, depth, ...)``:
  ``depth`` words of 4 bytes): the task function's depth, plus one exception frame and the
  context the RTOS saves on the task's own stack (9 words, 25 with the FPU).

With no limit known nothing is checked (nothing is reported); with one known but no cross
compiler (or gcc failing on some files), one BG512 note says what was not checked and why.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from brickguard.facts import Where
from brickguard.toolchain import INSTALL_HINT, find_gcc

if TYPE_CHECKING:
    from brickguard.program import Context, Program

_SU = re.compile(r"^(.*):(\d+):(\d+):(\S+)\t(\d+)\t(\S+)$")
_LD_SYMBOL = re.compile(r"^\s*(_Min_Stack_Size|__stack_size__|_stack_size|STACK_SIZE|"
                        r"__STACK_SIZE)\s*=\s*(0[xX][0-9a-fA-F]+|\d+)\s*([kK])?\s*;", re.M)
_LD_SECTION = re.compile(r"\.stack\b[^{]*\{[^}]*?\.\s*=\s*\.\s*\+\s*(0[xX][0-9a-fA-F]+|\d+)",
                         re.S)
FIXED_PRIORITY = {"NMI_Handler": -2, "HardFault_Handler": -1}
TASK_CREATORS = {"xTaskCreate": 2, "xTaskCreateStatic": 2}  # argument with the depth in words
CPUS = {"thumbv7em": "cortex-m4", "thumbv7m": "cortex-m3", "thumbv6m": "cortex-m0",
        "thumbv8m.main": "cortex-m33"}


@dataclass(frozen=True)
class Limit:
    bytes: int
    what: str  # "_Min_Stack_Size in STM32F407VGTX_FLASH.ld", "xTaskCreate(..., 128, ...)"
    where: Where | None


@dataclass
class Depth:
    bytes: int = 0
    chain: tuple[str, ...] = ()  # the deepest path's function names
    # why it has no bound, and where: the cycle, the pointer call, the dynamic frame
    unbounded: tuple[tuple[str, Where], ...] = ()
    unknown: frozenset[str] = frozenset()  # callees with no frame size (no definition here)


@dataclass
class EntryStack:
    name: str  # "main stack (MSP)", "task vSensor"
    need: int
    limit: Limit
    parts: list[str]  # "main 312 (main -> HAL_Init -> ...)", "USART1_IRQHandler 96 + frame 108"
    where: Where  # main's definition, the task creation call
    unbounded: list[tuple[str, Where]] = field(default_factory=list)  # (why, where)
    unknown: frozenset[str] = frozenset()


@dataclass
class StackReport:
    ran: bool = False
    skipped: str = ""  # what was not checked, and why (BG512)
    entries: list[EntryStack] = field(default_factory=list)


def linker_limit(program: Program) -> Limit | None:
    cfg = program.config
    if cfg.main_stack:
        return Limit(cfg.main_stack, "[stack] main_stack", None)
    root = Path(cfg.root)  # the project's folder and three levels below it
    scripts = [cfg.linker_script] if cfg.linker_script else sorted(
        p for pattern in ("*.ld", "*/*.ld", "*/*/*.ld", "*/*/*/*.ld") for p in root.glob(pattern)
        if ".brickguard-cache" not in p.parts)[:20]
    for script in scripts:
        try:
            text = script.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        m = _LD_SYMBOL.search(text)
        if m:
            n = int(m.group(2), 0) * (1024 if m.group(3) else 1)
            line = text.count("\n", 0, m.start(1)) + 1
            return Limit(n, f"{m.group(1)} in {script.name}", Where(str(script), line, 1))
        m = _LD_SECTION.search(text)
        if m:
            line = text.count("\n", 0, m.start()) + 1
            return Limit(int(m.group(1), 0), f".stack section in {script.name}",
                         Where(str(script), line, 1))
    return None


def task_limits(program: Program) -> list[tuple[str, str, Limit]]:
    """(task function USR, name, its stack) for each creation call with constant arguments."""
    by_name = {f.name: f.usr for f in program.functions.values()}
    out = []
    for c in program.hw_calls:
        at = TASK_CREATORS.get(c.callee)
        if at is None or len(c.args) <= at or c.args[at].value is None:
            continue
        fn = c.args[0].names[0] if c.args[0].names else c.args[0].text.lstrip("&( ").rstrip(")")
        usr = by_name.get(fn)
        if usr is None:
            continue
        words = c.args[at].value
        out.append((usr, fn, Limit(words * 4, f"{c.callee}(..., {c.args[at].text} words)",
                                   c.where)))
    return out


def _gcc_flags(program: Program) -> list[str]:
    cfg = program.config
    if cfg.stack_flags is not None:
        flags = list(cfg.stack_flags)
    else:
        arch = cfg.target.split("-")[0]
        flags = ["-O0", f"-mcpu={CPUS.get(arch, 'cortex-m4')}", "-mthumb"]
        flags += [f for f in cfg.extra_flags if f.startswith(("-mfloat-abi", "-mfpu", "-std"))]
    return [*flags, *(f"-I{p}" for p in cfg.include), *(f"-D{d}" for d in cfg.defines)]


def frame_sizes(program: Program, gcc: Path) -> tuple[dict[tuple[str, str], tuple[int, bool]],
                                                       list[str]]:
    """(basename of the file, function) -> (frame bytes, dynamic) from gcc -fstack-usage, and
    the files gcc could not compile (with its first error)."""
    flags = _gcc_flags(program)
    files = [u.file for u in program.units]
    sizes: dict[tuple[str, str], tuple[int, bool]] = {}
    failed: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bg-stack-") as tmp:
        def one(n_file: tuple[int, str]) -> tuple[str, str, str]:
            n, f = n_file
            out = Path(tmp) / f"u{n}.o"
            try:
                proc = subprocess.run([str(gcc), "-c", "-fstack-usage", *flags, f, "-o", str(out)],
                                      capture_output=True, text=True, timeout=120)
            except (OSError, subprocess.TimeoutExpired) as exc:
                return f, "", str(exc)
            su = out.with_suffix(".su")
            if proc.returncode != 0 or not su.is_file():
                err = next((ln for ln in proc.stderr.splitlines() if "error" in ln), "failed")
                return f, "", err.strip()
            return f, su.read_text(encoding="utf-8", errors="replace"), ""

        jobs = program.config.jobs or os.cpu_count() or 1
        with ThreadPoolExecutor(max_workers=max(1, min(jobs, len(files) or 1))) as pool:
            for f, text, err in pool.map(one, enumerate(files)):
                if err:
                    failed.append(f"{os.path.basename(f)} ({err[:120]})")
                for line in text.splitlines():
                    m = _SU.match(line)
                    if m:
                        key = (os.path.basename(m.group(1)), m.group(4))
                        dynamic = "dynamic" in m.group(6) and "bounded" not in m.group(6)
                        sizes[key] = (int(m.group(5)), dynamic)
    return sizes, failed


class _Graph:
    def __init__(self, program: Program, sizes: dict) -> None:
        self.p = program
        self.sizes = sizes
        self.memo: dict[str, Depth] = {}
        self.callees: dict[str, list[tuple[str, Where]]] = {}
        for c in program.calls:
            if not c.callee.startswith("macro:"):
                self.callees.setdefault(c.caller, []).append((c.callee, c.where))
        # What a call through a field may reach: the functions stored into that field, and
        # those passed to a function that stores its parameter there; None: not known.
        passed: dict[tuple[str, int], set[str]] = {}
        for pf in program.passed_functions:
            passed.setdefault((pf.callee, pf.arg), set()).add(pf.function)
        stored: dict[str, set[str] | None] = {}
        for s in program.stored_functions:
            have = stored.setdefault(s.field, set())
            if s.other or have is None:
                stored[s.field] = None
            elif s.param >= 0:
                have |= passed.get((s.function, s.param), set())
            else:
                have.add(s.function)
        self.pointer: dict[str, list] = {}
        for ic in program.indirect_calls:
            targets = stored.get(ic.field, set()) if ic.field else None
            self.pointer.setdefault(ic.function, []).append((ic, targets))

    def name(self, usr: str) -> str:
        f = self.p.functions.get(usr)
        return f.name if f is not None else usr.rsplit("@", 1)[-1]

    def frame(self, usr: str) -> tuple[int, bool] | None:
        f = self.p.functions.get(usr)
        if f is None:
            return None
        return self.sizes.get((os.path.basename(f.where.file), f.name), (0, False))

    def depth(self, usr: str, stack: tuple[str, ...] = ()) -> Depth:
        if usr in self.memo:
            return self.memo[usr]
        frame = self.frame(usr)
        if frame is None:
            return Depth(0, (self.name(usr),), unknown=frozenset({self.name(usr)}))
        own, dynamic = frame
        here = (*stack, usr)
        bytes_, chain = own, (self.name(usr),)
        why: dict[tuple[str, Where], None] = {}
        unknown: set[str] = set()
        if dynamic:
            f = self.p.functions[usr]
            why[(f"{f.name} has a dynamic frame (alloca, a variable-length array)",
                 f.where)] = None
        edges = list(self.callees.get(usr, []))
        for ic, targets in self.pointer.get(usr, []):
            if targets is None:
                what = (f"`{ic.field}` is also set from a value not known here" if ic.field
                        else "a pointer variable or parameter")
                why[(f"{self.name(usr)} calls through `{ic.text}`: {what}", ic.where)] = None
                continue
            if not targets:  # nothing is ever stored there: the call cannot happen (NULL)
                unknown.add(f"{ic.text} (nothing stored)")
            edges += [(t, ic.where) for t in sorted(targets)]
        for callee, where in edges:
            if callee in here:
                cycle = [self.name(u) for u in here[here.index(callee):]] + [self.name(callee)]
                why[(f"recursion {' -> '.join(cycle)}", where)] = None
                continue
            d = self.depth(callee, here)
            unknown |= d.unknown
            why.update(dict.fromkeys(d.unbounded))
            if own + d.bytes > bytes_:
                bytes_, chain = own + d.bytes, (self.name(usr), *d.chain)
        best = Depth(bytes_, chain, tuple(why))
        best.unknown = frozenset(unknown)
        # Kept even where a cycle was cut below: every function on a cycle is unbounded anyway.
        self.memo[usr] = best
        return best


def _chain(d: Depth) -> str:
    names = list(d.chain)
    if len(names) > 6:
        names = [*names[:3], "...", *names[-2:]]
    return " -> ".join(names)


def _fpu(program: Program) -> bool:
    text = " ".join([*program.config.extra_flags, *(program.config.stack_flags or [])])
    return "float-abi=hard" in text or "float-abi=softfp" in text


def handlers(program: Program) -> list[tuple[str, Context]]:
    """Interrupt handlers proper: by name, attribute or vector table, and called by no code
    (not HAL_UART_IRQHandler, which USART2_IRQHandler calls; no ``HAL_*`` function, which the
    CMSIS vector names never are; nor the HAL callbacks, nor functions reached from assembly:
    their handler's depth includes them)."""
    called = {c.callee for c in program.calls}  # HAL_UART_IRQHandler: called by the vector's
    return [(usr, ctx) for usr, ctx in program.entries.items()
            if ctx.is_interrupt and usr not in called and not ctx.name.startswith("HAL_")
            and not ctx.how.startswith(("HAL callback", "called from"))]


def stack_report(program: Program) -> StackReport:
    report = StackReport()
    cfg = program.config
    if not cfg.stack:
        return report
    main_limit = linker_limit(program)
    tasks = task_limits(program)
    mains = [usr for usr, ctx in program.entries.items()
             if not ctx.is_interrupt and ctx.name == "main"]
    if (main_limit is None or not mains) and not tasks:
        return report  # nothing to compare with
    gcc = find_gcc(cfg.stack_gcc)
    if gcc is None:
        name = cfg.stack_gcc or "arm-none-eabi-gcc"
        report.skipped = f"stack depth not checked: no {name} found ({INSTALL_HINT})"
        return report
    sizes, failed = frame_sizes(program, gcc)
    report.ran = True
    if failed:
        report.skipped = (f"stack depth only partly known: gcc -fstack-usage failed on "
                          f"{len(failed)} file(s), whose functions count 0: "
                          f"{'; '.join(failed[:3])}")
    g = _Graph(program, sizes)
    frame = (104 if _fpu(program) else 32) + 4
    if main_limit is not None and mains:
        main = mains[0]
        d = g.depth(main)
        levels: dict[object, tuple[int, str, Depth]] = {}
        for usr, ctx in handlers(program):
            prio = FIXED_PRIORITY.get(ctx.name, program.priority(ctx))
            level = prio if prio is not None else "unknown"
            hd = g.depth(usr)
            if level not in levels or hd.bytes > levels[level][0]:
                levels[level] = (hd.bytes, ctx.name, hd)
        parts = [f"main {d.bytes} ({_chain(d)})"]
        need = d.bytes
        unbounded = list(d.unbounded)
        unknown = set(d.unknown)
        for level, (n, name, hd) in sorted(levels.items(), key=lambda kv: str(kv[0])):
            need += n + frame
            parts.append(f"{name} {n} + {frame} frame (priority {level})")
            unknown |= hd.unknown
            unbounded += [u for u in hd.unbounded if u not in unbounded]
        f = program.functions[main]
        report.entries.append(EntryStack("main stack (MSP)", need, main_limit, parts, f.where,
                                         unbounded, frozenset(unknown)))
    switch = frame + (100 if _fpu(program) else 36)
    for usr, name, limit in tasks:
        d = g.depth(usr)
        parts = [f"{name} {d.bytes} ({_chain(d)})", f"{switch} exception frame and saved context"]
        report.entries.append(EntryStack(f"task {name}", d.bytes + switch, limit, parts,
                                         limit.where or program.functions[usr].where,
                                         list(d.unbounded), d.unknown))
    return report
