"""Compiling the project for soak: the real cross compiler, a generated harness and linker script.

The project's sources (and ``[soak] sources``) are compiled with ``arm-none-eabi-gcc`` for the
target CPU (``-mcpu=... -mthumb``, soft float, DWARF 4 line tables), with the include folders and
defines of ``compile_commands.json`` or ``[build]``. The harness adds a vector table, the driver
that calls the scenario, and the hook behind ``BG_SOAK_ASSERT``. A function or object the sources
use but do not define (a vendor HAL that is not part of the build) gets a stub: a function that
returns 0, or a zeroed 256-byte object; which it is, the object files' relocations say (a call
relocation: a function). The stubs are listed in the report.

The image is read back with pyelftools: loadable segments, symbols and the line table.
"""

from __future__ import annotations

import bisect
import os
import re
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from brickguard.analyze import collect_sources
from brickguard.build_flags import load_compile_commands
from brickguard.errors import BrickguardError
from brickguard.soak.settings import SoakTable
from brickguard.toolchain import INSTALL_HINT, find_gcc

if TYPE_CHECKING:
    from brickguard.config import Config

RAM_BASE = 0x20000000
PAGE = 0x1000
SOAK_INCLUDE = Path(__file__).resolve().parents[1] / "data" / "soak"
# -mcpu from the clang target triple when neither [soak] cpu nor the flags name one.
TRIPLE_CPU = {"thumbv6m": "cortex-m0", "thumbv7m": "cortex-m3", "thumbv7em": "cortex-m4",
              "thumbv8m.main": "cortex-m33"}
# Flags of the project's own build that soak keeps (the rest are about its output or host).
KEPT = re.compile(r"^(-I|-D|-U|-std=|-include|-isystem|-iquote|-f(?!stack-usage|profile))")
# Stand-ins for undefined platform calls whose effect on interrupts soak can model: the CMSIS and
# HAL NVIC calls write the emulated NVIC; FreeRTOS's and Zephyr's critical sections set BASEPRI
# on v7-M as their ports do, PRIMASK on v6-M.
# The enter and exit of a critical-section pair the configuration lists (the vendor profiles')
# mask with PRIMASK (PAIR_ENTER, PAIR_EXIT). Any other undefined function returns 0.
STAND_INS = {
    "NVIC_EnableIRQ": "void {name}(int n) {{ ((volatile unsigned *)0xE000E100u)[n >> 5] = "
                      "1u << (n & 31); }}",
    "NVIC_DisableIRQ": "void {name}(int n) {{ ((volatile unsigned *)0xE000E180u)[n >> 5] = "
                       "1u << (n & 31); }}",
    # The level in the top __NVIC_PRIO_BITS of the byte, as CMSIS's __NVIC_SetPriority stores it
    # (the device header's value, read with gcc -E -dM; 4, the STM32 one, when none says).
    "NVIC_SetPriority": "void {name}(int n, unsigned p) {{ if (n >= 0) "
                        "((volatile unsigned char *)0xE000E400u)[n] = "
                        "(unsigned char)(p << (8u - BG_PRIO_BITS)); }}",
    "HAL_NVIC_SetPriority": "void {name}(int n, unsigned p, unsigned s) {{ (void)s; if (n >= 0) "
                            "((volatile unsigned char *)0xE000E400u)[n] = "
                            "(unsigned char)(p << (8u - BG_PRIO_BITS)); }}",
    # As the ports do: BASEPRI to configMAX_SYSCALL_INTERRUPT_PRIORITY on v7-M (ARM_CM3/CM4F:
    # a more urgent interrupt still runs inside), PRIMASK on v6-M (ARM_CM0) or when unknown.
    "vPortEnterCritical": "void {name}(void) {{\n#if defined(configMAX_SYSCALL_INTERRUPT_PRIORITY)"
                          "\n    unsigned v = configMAX_SYSCALL_INTERRUPT_PRIORITY; __asm volatile("
                          "\"msr basepri, %0\" : : \"r\"(v) : \"memory\");\n#else\n"
                          "    __asm volatile(\"cpsid i\" ::: \"memory\");\n#endif\n"
                          "    bg_nesting++; }}",
    "vPortExitCritical": "void {name}(void) {{ if (bg_nesting && --bg_nesting == 0u) {{\n"
                         "#if defined(configMAX_SYSCALL_INTERRUPT_PRIORITY)\n    unsigned v = 0u;"
                         " __asm volatile(\"msr basepri, %0\" : : \"r\"(v) : \"memory\");\n"
                         "#else\n    __asm volatile(\"cpsie i\" ::: \"memory\");\n#endif\n"
                         "    }} }}",
    # Zephyr's: on v7-M/v8-M Mainline BASEPRI_MAX to _EXC_IRQ_DEFAULT_PRIO, Z_EXC_PRIO(2) with
    # zero-latency interrupts (0x40 for 3 priority bits): one at priority 0 (IRQ_ZERO_LATENCY)
    # still runs inside; PRIMASK on v6-M and v8-M Baseline, which have no BASEPRI.
    "irq_lock": "unsigned {name}(void) {{ unsigned k;\n#if defined(__ARM_ARCH_6M__) || "
                "defined(__ARM_ARCH_8M_BASE__)\n    __asm volatile(\"mrs %0, primask\" : "
                "\"=r\"(k)); __asm volatile(\"cpsid i\" ::: \"memory\");\n#else\n"
                "    unsigned v = 0x40u; __asm volatile(\"mrs %0, basepri\" : \"=r\"(k));"
                " __asm volatile(\"msr basepri_max, %0\" : : \"r\"(v) : \"memory\");\n"
                "#endif\n    return k; }}",
    "irq_unlock": "void {name}(unsigned k) {{\n#if defined(__ARM_ARCH_6M__) || "
                  "defined(__ARM_ARCH_8M_BASE__)\n    __asm volatile(\"msr primask, %0\" : : "
                  "\"r\"(k) : \"memory\");\n#else\n    __asm volatile(\"msr basepri, %0\" : "
                  ": \"r\"(k) : \"memory\");\n#endif\n    }}",
}
# TI driverlib (MSP432): Interrupt_setPriority takes the exception number (INT_X = IRQn + 16) and
# the register byte itself. (Interrupt_setPriorityMask is one of the profile's BASEPRI writes:
# SET_BASEPRI; Interrupt_disableMaster/enableMaster its critical-section pair: PAIR_ENTER,
# PAIR_EXIT.)
STAND_INS.update({
    # TI driverlib's and TivaWare's one-line masks take the exception number too (INT_X).
    "Interrupt_disableInterrupt": "void {name}(unsigned n) {{ if (n >= 16u) ((volatile unsigned "
                                  "*)0xE000E180u)[(n - 16u) >> 5] = 1u << ((n - 16u) & 31u); }}",
    "Interrupt_enableInterrupt": "void {name}(unsigned n) {{ if (n >= 16u) ((volatile unsigned "
                                 "*)0xE000E100u)[(n - 16u) >> 5] = 1u << ((n - 16u) & 31u); }}",
    "Interrupt_setPriority": "void {name}(unsigned n, unsigned char p) {{ if (n >= 16u) "
                             "((volatile unsigned char *)0xE000E400u)[n - 16u] = p; "
                             "else if (n >= 4u) ((volatile unsigned char *)0xE000ED14u)[n] = p; }}",
})
PAIR_ENTER = ("unsigned {name}(void) {{ __asm volatile(\"cpsid i\" ::: \"memory\"); "
              "bg_nesting++; return 1u; }}")
# A call the configuration lists as setting BASEPRI to its argument (``[critical] basepri``:
# TI's Interrupt_setPriorityMask, IntPriorityMaskSet...); none on v6-M, which has no BASEPRI.
SET_BASEPRI = ("void {name}(unsigned v) {{\n#if !defined(__ARM_ARCH_6M__)\n    __asm volatile("
               "\"msr basepri, %0\" : : \"r\"(v) : \"memory\");\n#endif\n    (void)v; }}")
# The one-line masks the configuration lists (``[critical] masks``, the vendor profiles':
# SYS_INT_SourceDisable/SYS_INT_SourceRestore, DisableIRQ/EnableIRQ, irq_disable/irq_enable),
# on the NVIC line their first argument numbers (CMSIS IRQn_Type): the disable clears its enable
# bit and returns whether it was set (Harmony's "the line's state"); a restore (its name says
# Restore) sets it again only if its second argument, that state, is non-zero; an enable sets it.
LINE_OFF = ("unsigned {name}(int n) {{ unsigned was = 0u; if (n >= 0) {{ was = (((volatile "
            "unsigned *)0xE000E100u)[n >> 5] >> (n & 31)) & 1u; ((volatile unsigned *)"
            "0xE000E180u)[n >> 5] = 1u << (n & 31); }} return was; }}")
LINE_ON = ("void {name}(int n) {{ if (n >= 0) ((volatile unsigned *)0xE000E100u)[n >> 5] = "
           "1u << (n & 31); }}")
LINE_RESTORE = ("void {name}(int n, unsigned on) {{ if (n >= 0 && on) ((volatile unsigned *)"
                "0xE000E100u)[n >> 5] = 1u << (n & 31); }}")
PAIR_EXIT = ("void {name}(void) {{ if (bg_nesting && --bg_nesting == 0u) "
             "__asm volatile(\"cpsie i\" ::: \"memory\"); }}")
STAND_INS["IntDisable"] = STAND_INS["Interrupt_disableInterrupt"]
STAND_INS["IntEnable"] = STAND_INS["Interrupt_enableInterrupt"]
STAND_INS["HAL_NVIC_EnableIRQ"] = STAND_INS["NVIC_EnableIRQ"]
STAND_INS["HAL_NVIC_DisableIRQ"] = STAND_INS["NVIC_DisableIRQ"]
V6M = ("cortex-m0", "cortex-m0plus")  # no BASEPRI: FreeRTOS's ARM_CM0 port masks with PRIMASK
CALL_RELOCS = {10, 30, 102}  # R_ARM_THM_CALL, R_ARM_THM_JUMP24, R_ARM_THM_JUMP11
STUB_BYTES = 256
CALL = re.compile(r"(?:bl|b\.w|b\.n|b)\s+[0-9a-f]+ <([A-Za-z_]\w*)>$")  # to a function's start


@dataclass
class Symbol:
    name: str
    addr: int
    size: int
    func: bool


@dataclass
class Image:
    """A linked soak image, read back: what the machine loads and what witnesses name."""

    cpu: str
    segments: list[tuple[int, bytes]]
    symbols: dict[str, Symbol]
    code_end: int
    ram_end: int  # the end of .data, .bss and the stack (RAM_BASE up to here is mapped)
    stack_bottom: int
    stack_top: int
    lines: list[tuple[int, str, int]]  # (address, file, line), sorted by address
    enumerators: dict[str, int]  # enum constants the sources declare (USART1_IRQn = 37)
    disasm: dict[int, str]  # address -> "ldrb r3, [r2]"
    takes_args: set[str] = field(default_factory=set)  # functions DWARF gives parameters
    stubbed: list[str] = field(default_factory=list)
    uses_assert: bool = False  # some source calls BG_SOAK_ASSERT
    prio_bits: int = 4  # __NVIC_PRIO_BITS as the sources define it (4 when they do not)
    plain_stubs: list[str] = field(default_factory=list)  # stubbed calls that return stub_return
    stub_return: int = 0
    # The memory locations of the objects in RAM (C11 3.14: a scalar, or a run of adjacent
    # bit-fields), from DWARF: (address, size, name), by address.
    locations: list[tuple[int, int, str]] = field(default_factory=list)
    _objects: list[Symbol] = field(default_factory=list)
    _functions: list[Symbol] = field(default_factory=list)

    def __post_init__(self) -> None:
        objs = [s for s in self.symbols.values() if not s.func and s.size > 0]
        self._objects = sorted(objs, key=lambda s: s.addr)
        self._functions = sorted((s for s in self.symbols.values() if s.func),
                                 key=lambda s: s.addr)
        self._line_addrs = [a for a, _, _ in self.lines]
        self._location_addrs = [a for a, _, _ in self.locations]
        self._object_addrs = [s.addr for s in self._objects]
        self._callers: dict[str, set[str]] | None = None

    def address(self, name: str) -> int:
        sym = self.symbols.get(name)
        if sym is None or name in self.stubbed:
            raise BrickguardError(f"[soak]: no function or object named {name!r} in the image "
                                  "(not compiled, static and unused, or inlined everywhere)")
        return sym.addr

    def line_at(self, pc: int) -> tuple[str, int] | None:
        i = bisect.bisect_right(self._line_addrs, pc) - 1
        if i < 0:
            return None
        _, file, line = self.lines[i]
        return (file, line) if line > 0 else None

    def function_at(self, pc: int) -> str:
        i = bisect.bisect_right([s.addr for s in self._functions], pc) - 1
        if i >= 0:
            sym = self._functions[i]
            if pc < sym.addr + max(sym.size, 2):
                return sym.name
        return f"0x{pc:x}"

    def in_it_block(self) -> set[int]:
        """Addresses of the instructions an IT instruction makes conditional (Thumb-2)."""
        out: set[int] = set()
        addrs = sorted(self.disasm)
        for n, addr in enumerate(addrs):
            m = re.match(r"it([te]{0,3})\b", self.disasm[addr])
            if m:
                out.update(addrs[n + 1:n + 2 + len(m.group(1))])
        return out

    def callers(self) -> dict[str, set[str]]:
        """Function -> the functions whose code calls or tail-calls its start (``bl``, ``b.w``
        to ``<name>``), from the disassembly: calls the compiler inlined are not there."""
        if self._callers is None:
            out: dict[str, set[str]] = {}
            for addr, text in self.disasm.items():
                m = CALL.match(text)
                if m and (caller := self.function_at(addr)) != m.group(1):
                    out.setdefault(m.group(1), set()).add(caller)
            self._callers = out
        return self._callers

    def roots(self, name: str, *, stop: Callable[[str], bool] = lambda _: False) -> list[str]:
        """The functions that reach ``name`` through calls and have no caller themselves (or
        for which ``stop`` holds: the walk goes no higher there), nearest first; [name] when
        nothing calls it."""
        callers = self.callers()
        seen, level, out = {name}, [name], []
        while level:
            up = []
            for fn in level:
                above = sorted(callers.get(fn, set()) - seen)
                if (fn != name and stop(fn)) or not above:
                    out.append(fn)
                    continue
                seen.update(above)
                up += above
            level = up
        return [fn for fn in out if not fn.startswith("__bg_")] or [name]

    def functions_of_line(self, file: str, line: int) -> list[str]:
        """The functions whose code the line table maps ``file:line`` into, in address order
        (a line inlined into its callers is in each of them)."""
        target = Path(file).resolve()
        out: list[str] = []
        for addr, f, n in self.lines:
            if n == line and Path(f).resolve() == target:
                name = self.function_at(addr)
                if not name.startswith(("0x", "__bg_")) and name not in out:
                    out.append(name)
        return out

    def location_of(self, addr: int) -> tuple[int, int, str]:
        """The memory location holding byte ``addr``: (first byte, end, name): from DWARF (a
        struct member, an array element, a bit-field run), else the whole object when it is a
        scalar-sized symbol (8 bytes or less), else the byte alone."""
        i = bisect.bisect_right(self._location_addrs, addr) - 1
        if i >= 0:
            lo, size, name = self.locations[i]
            if addr < lo + size:
                return lo, lo + size, name
        j = bisect.bisect_right(self._object_addrs, addr) - 1
        if j >= 0:
            sym = self._objects[j]
            if addr < sym.addr + sym.size and sym.size <= 8:
                return sym.addr, sym.addr + sym.size, sym.name
        return addr, addr + 1, self.object_at(addr)

    def object_at(self, addr: int) -> str:
        """``rx_buffer[+3]`` for a byte inside an object, the address otherwise."""
        i = bisect.bisect_right(self._object_addrs, addr) - 1
        if i >= 0:
            sym = self._objects[i]
            if addr < sym.addr + sym.size:
                off = addr - sym.addr
                return sym.name if off == 0 and sym.size <= 4 else f"{sym.name}[+{off}]"
        return f"0x{addr:08x}"


def cpu_for(config: Config, soak: SoakTable) -> str:
    if soak.cpu:
        return soak.cpu
    for flag in [*soak.flags, *config.extra_flags]:
        if flag.startswith("-mcpu="):
            return flag.split("=", 1)[1]
    arch = config.target.split("-", 1)[0]
    return TRIPLE_CPU.get(arch, "cortex-m4")


def harness_source(soak: SoakTable) -> str:
    """The generated harness: the driver, the assert hook and a vector table.

    The driver calls the scenario through a pointer the emulator sets from the symbol table, so
    a static scenario works and nothing here declares the project's functions; the emulator
    also fills the vector table's IRQ slots with the handlers' addresses."""
    slots = max([16, *(16 + i.irq + 1 for i in soak.interrupts if i.irq is not None)])
    calls = 1 if soak.scenario == "main" or soak.bounded else soak.repeat
    lines = [
        "#include <stdint.h>",
        "extern uint32_t __bg_stack_top;",
        "void (*volatile __bg_scenario)(void);",
        "volatile uint32_t __bg_call;",
        "volatile int __bg_assert_line;",
        "const char *volatile __bg_assert_expr;",
        "const char *volatile __bg_assert_file;",
        "void __bg_soak_assert_failed(const char *expr, const char *file, int line)",
        "{",
        "    if (!__bg_assert_line) { __bg_assert_expr = expr; __bg_assert_file = file;",
        "        __bg_assert_line = line; }",
        "}",
        "void __bg_default_handler(void) { for (;;) { } }",
        "void __bg_drive(void)",
        "{",
        f"    for (uint32_t i = 0; i < {calls}u; i++) {{",
        "        __bg_call = i; __bg_scenario();",
        "    }",
        f"    __bg_call = {calls}u;",
        "}",
        '__attribute__((section(".isr_vector"), used))',
        f"void (*const __bg_vectors[{slots}])(void) = {{",
        "    (void (*)(void))&__bg_stack_top,",
        *["    __bg_default_handler,"] * (slots - 1),
        "};",
    ]
    return "\n".join(lines) + "\n"


def linker_script(stack: int) -> str:
    return f"""ENTRY(__bg_drive)
MEMORY {{
  FLASH (rx) : ORIGIN = 0x00000000, LENGTH = 16M
  RAM (rwx) : ORIGIN = 0x{RAM_BASE:08x}, LENGTH = 16M
}}
SECTIONS {{
  .text : {{ KEEP(*(.isr_vector)) *(.text*) *(.rodata*) . = ALIGN(4); }} > FLASH
  .ARM.exidx : {{ *(.ARM.exidx*) }} > FLASH
  __bg_code_end = .;
  .data : {{ *(.data*) . = ALIGN(4); }} > RAM
  .bss (NOLOAD) : {{ *(.bss*) *(COMMON) . = ALIGN(8); }} > RAM
  end = .; _end = .; __end__ = .;
  .stack (NOLOAD) : {{ __bg_stack_bottom = .; . = . + {stack}; __bg_stack_top = .; }} > RAM
}}
"""


def _flags_for(file: Path, config: Config, commands: dict[str, tuple[str, list[str]]]) -> list[str]:
    entry = commands.get(os.path.normpath(str(file.resolve())))
    if entry is not None:
        directory, argv = entry
        out = []
        for a in argv:
            if KEPT.match(a):
                if a.startswith("-I") and len(a) > 2 and not os.path.isabs(a[2:]):
                    a = "-I" + os.path.join(directory, a[2:])
                out.append(a)
        return out
    return [*(f"-I{p}" for p in config.include), *(f"-D{d}" for d in config.defines)]


def build(paths: list[Path], config: Config, soak: SoakTable,
          workdir: Path | None = None) -> Image:
    """Compile and link the project for soak; raise BrickguardError with what to do on failure."""
    gcc = find_gcc()
    if gcc is None:
        raise BrickguardError(
            f"soak needs the Arm cross compiler arm-none-eabi-gcc: {INSTALL_HINT}")
    cpu = cpu_for(config, soak)
    sources = collect_sources(paths)
    sources += [Path(config.root) / s for s in soak.sources]
    missing = [str(s) for s in sources if not s.is_file()]
    if missing:
        raise BrickguardError(f"[soak] sources: no such file: {', '.join(missing)}")
    commands = load_compile_commands(config.compile_commands) if config.compile_commands else {}
    arch = [f"-mcpu={cpu}", "-mthumb", "-mfloat-abi=soft"]
    opt = [f for f in soak.flags if f.startswith("-O")] or ["-O2"]
    extra = [f for f in soak.flags if not f.startswith(("-O", "-mcpu="))]
    # -fno-ipa-icf: gcc -O2 folds a function into an identical twin; each keeps its own code
    # and line table here, so a finding in either has instructions to inject before.
    common = [*arch, *opt, "-gdwarf-4", "-ffreestanding", "-fno-common", "-fno-ipa-icf",
              "-DBG_SOAK=1",
              f"-I{SOAK_INCLUDE}", *extra]
    with tempfile.TemporaryDirectory(prefix="brickguard-soak-", dir=workdir) as tmp:
        out = Path(tmp)
        (out / "bg_harness.c").write_text(harness_source(soak), encoding="utf-8")
        (out / "soak.ld").write_text(linker_script(soak.stack), encoding="utf-8")
        objects = []
        for n, src in enumerate([*sources, out / "bg_harness.c"]):
            obj = out / f"{n:03d}_{src.stem}.o"
            flags = _flags_for(src, config, commands) if src.parent != out else []
            _compile(gcc, [*common, *flags], src, obj, cpu)
            objects.append(obj)
        elf = out / "soak.elf"
        errors = _link(gcc, arch, objects, out, elf)
        stubbed: list[str] = []
        plain: list[str] = []
        undefined = sorted(set(re.findall(r"undefined reference to `([^']+)'", errors)))
        if errors and not undefined:
            raise BrickguardError(f"the soak image does not link: {_first_error(errors)}")
        # The sources' macros, once: the stand-ins' (FreeRTOS's config*, __NVIC_PRIO_BITS for
        # the NVIC_SetPriority ones) and [interrupts] priorities' levels (in the top bits).
        needs = {"vPortEnterCritical", "NVIC_SetPriority", "HAL_NVIC_SetPriority"}
        macros = (_macros(gcc, [*common, *arch], sources, config, commands)
                  if needs & set(undefined) or config.interrupt_priorities else {})
        prio_bits = _prio_bits(macros)
        if undefined:
            stub = out / "bg_stubs.c"
            prelude = f"#define BG_PRIO_BITS {prio_bits}u\n"
            if "vPortEnterCritical" in undefined and cpu not in V6M:
                prelude += "".join(line + "\n" for name, line in macros.items()
                                   if name.startswith("config"))
            text, plain = _stubs(undefined, objects, config.critical_sections,
                                 config.platform.basepri, config.platform.critical_masks,
                                 soak.stub_return)
            stub.write_text(prelude + text, encoding="utf-8")
            obj = out / "zzz_bg_stubs.o"
            _compile(gcc, common, stub, obj, cpu)
            objects.append(obj)
            errors = _link(gcc, arch, objects, out, elf)
            if errors:
                raise BrickguardError(f"the soak image does not link: {_first_error(errors)}")
            stubbed = undefined
        image = _read_image(gcc, elf, cpu, stubbed)
        image.uses_assert = "__bg_soak_assert_failed" in _called(objects[:len(sources)])
        image.prio_bits = prio_bits
        image.plain_stubs = plain
        image.stub_return = soak.stub_return
        return image


def _compile(gcc: Path, flags: list[str], src: Path, obj: Path, cpu: str) -> None:
    proc = subprocess.run([str(gcc), *flags, "-c", str(src), "-o", str(obj)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise BrickguardError(f"{src} does not compile for {cpu}: {_first_error(proc.stderr)}")


def _link(gcc: Path, arch: list[str], objects: list[Path], out: Path, elf: Path) -> str:
    argv = [str(gcc), *arch, "-nostartfiles", "-specs=nano.specs", "-T", str(out / "soak.ld"),
            *map(str, objects), "-Wl,--start-group", "-lc", "-lgcc", "-Wl,--end-group",
            "-o", str(elf)]
    proc = subprocess.run(argv, capture_output=True, text=True)
    return proc.stderr if proc.returncode != 0 else ""


def _first_error(text: str) -> str:
    for line in text.splitlines():
        if "error" in line or "undefined reference" in line or "multiple definition" in line:
            return line.strip()
    return text.strip().splitlines()[0] if text.strip() else "(no message)"


def _called(objects: list[Path]) -> set[str]:
    """Names that some object file calls (a Thumb call or tail-call relocation against them)."""
    from elftools.elf.elffile import ELFFile
    from elftools.elf.relocation import RelocationSection

    called: set[str] = set()
    for path in objects:
        with open(path, "rb") as fh:
            elf = ELFFile(fh)
            symtab = elf.get_section_by_name(".symtab")
            for section in elf.iter_sections():
                if not isinstance(section, RelocationSection) or symtab is None:
                    continue
                for rel in section.iter_relocations():
                    if rel["r_info_type"] in CALL_RELOCS:
                        called.add(symtab.get_symbol(rel["r_info_sym"]).name)
    return called


def _macros(gcc: Path, flags: list[str], sources: list[Path], config: Config,
            commands: dict[str, tuple[str, list[str]]]) -> dict[str, str]:
    """The object-like macros the stand-ins need from what the sources see (``gcc -E -dM``):
    FreeRTOS's ``config*`` (a v7-M port's critical section raises BASEPRI to
    configMAX_SYSCALL_INTERRUPT_PRIORITY instead of masking every interrupt) and the device
    header's ``__NVIC_PRIO_BITS`` (the priority bits the NVIC implements). Name -> line."""
    found: dict[str, str] = {}
    for src in sources:
        if src.suffix != ".c":
            continue
        proc = subprocess.run([str(gcc), *flags, *_flags_for(src, config, commands), "-E",
                               "-dM", str(src)], capture_output=True, text=True)
        for line in proc.stdout.splitlines():
            m = re.match(r"#define (config\w+|__NVIC_PRIO_BITS)\b", line)
            if m and "(" not in m.group(1):
                found.setdefault(m.group(1), line)
    return found


def _prio_bits(macros: dict[str, str]) -> int:
    """``__NVIC_PRIO_BITS`` when the sources define it as a number from 2 to 8, else 4."""
    m = re.match(r"#define __NVIC_PRIO_BITS\s+\(?\s*(\d+)[uUlL]*\s*\)?\s*$",
                 macros.get("__NVIC_PRIO_BITS", ""))
    return int(m.group(1)) if m and 2 <= int(m.group(1)) <= 8 else 4


def _stubs(undefined: list[str], objects: list[Path],
           pairs: list[tuple[str, str]] = (), basepri: list[str] = (),
           masks: list[tuple[str, str]] = (), value: int = 0) -> tuple[str, list[str]]:
    """Stubs for the undefined names; a critical-section pair the configuration knows
    (``[critical] pairs``, the vendor profiles': ``DisableGlobalIRQ``/``EnableGlobalIRQ``,
    ``SYS_INT_Disable``/``SYS_INT_Restore``) masks with PRIMASK, nesting, as the static
    analysis takes it to (its enter returns 1: "interrupts were on"); a call it lists as a
    BASEPRI write (``[critical] basepri``) writes BASEPRI; a one-line mask (``[critical]
    masks``) writes the NVIC's enable bits (LINE_OFF, LINE_ON, LINE_RESTORE). Any other called
    function returns ``value`` (0; ``[soak] stub_return``, ``--stub-return``). Returns the text
    and the names of those plain stubs."""
    called = _called(objects)
    enters = {enter for enter, _ in pairs}
    exits = {leave for _, leave in pairs} - enters
    line_off = {off for off, _ in masks}
    line_on = {on for _, on in masks} - line_off
    plain: list[str] = []
    lines = ["/* brickguard soak: stand-ins for what the sources use but do not define. */",
             "static unsigned bg_nesting; /* critical-section depth */",
             "static unsigned *volatile bg_keep = &bg_nesting;"]
    for name in undefined:
        if name in STAND_INS:
            lines.append(STAND_INS[name].format(name=name))
        elif name in basepri and name in called:
            lines.append(SET_BASEPRI.format(name=name))
        elif name in enters and name in called:
            lines.append(PAIR_ENTER.format(name=name))
        elif name in exits and name in called:
            lines.append(PAIR_EXIT.format(name=name))
        elif name in line_off and name in called:
            lines.append(LINE_OFF.format(name=name))
        elif name in line_on and name in called:
            lines.append((LINE_RESTORE if "Restore" in name else LINE_ON).format(name=name))
        elif name in called:
            lines.append(f"unsigned {name}(void) {{ return 0x{value & 0xFFFFFFFF:x}u; }}")
            plain.append(name)
        else:
            lines.append(f"unsigned char {name}[{STUB_BYTES}] __attribute__((aligned(8)));")
    return "\n".join(lines) + "\n", plain


def _read_image(gcc: Path, elf_path: Path, cpu: str, stubbed: list[str]) -> Image:
    from elftools.elf.elffile import ELFFile

    with open(elf_path, "rb") as fh:
        elf = ELFFile(fh)
        segments = [(seg["p_paddr"], seg.data()) for seg in elf.iter_segments()
                    if seg["p_type"] == "PT_LOAD" and seg["p_filesz"] > 0]
        symbols: dict[str, Symbol] = {}
        ranks: dict[str, tuple[bool, bool]] = {}  # a typed global wins over a local namesake
        symtab = elf.get_section_by_name(".symtab")
        for sym in symtab.iter_symbols() if symtab is not None else ():
            kind = sym["st_info"]["type"]
            if not sym.name or kind not in ("STT_FUNC", "STT_OBJECT", "STT_NOTYPE"):
                continue
            if kind == "STT_NOTYPE" and sym.name.startswith("$"):
                continue  # mapping symbols ($t, $d)
            func = kind == "STT_FUNC"
            addr = sym["st_value"] & ~1 if func else sym["st_value"]
            known = symbols.get(sym.name)
            rank = (kind != "STT_NOTYPE", sym["st_info"]["bind"] == "STB_GLOBAL")
            if known is None or rank > ranks[sym.name]:
                symbols[sym.name] = Symbol(sym.name, addr, sym["st_size"], func)
                ranks[sym.name] = rank
        lines = _line_table(elf) if elf.has_dwarf_info() else []
        enumerators, takes_args, locations = (_dwarf_names(elf) if elf.has_dwarf_info()
                                              else ({}, set(), []))
    disasm = _disassemble(gcc, elf_path)
    return Image(
        cpu=cpu,
        segments=segments,
        symbols=symbols,
        code_end=symbols["__bg_code_end"].addr,
        ram_end=symbols["__bg_stack_top"].addr,
        stack_bottom=symbols["__bg_stack_bottom"].addr,
        stack_top=symbols["__bg_stack_top"].addr,
        lines=lines,
        enumerators=enumerators,
        disasm=disasm,
        stubbed=stubbed,
        takes_args=takes_args,
        locations=locations,
    )


def _line_table(elf) -> list[tuple[int, str, int]]:
    """(address, file, line) rows of every compilation unit's DWARF line program."""
    dwarf = elf.get_dwarf_info()
    rows: list[tuple[int, str, int]] = []
    for cu in dwarf.iter_CUs():
        program = dwarf.line_program_for_CU(cu)
        if program is None:
            continue
        top = cu.get_top_DIE()
        comp_dir = top.attributes.get("DW_AT_comp_dir")
        base = comp_dir.value.decode() if comp_dir is not None else ""
        dirs = [d.decode() if isinstance(d, bytes) else d
                for d in program["include_directory"]]
        files = []
        for entry in program["file_entry"]:
            name = entry.name.decode() if isinstance(entry.name, bytes) else entry.name
            folder = dirs[entry.dir_index - 1] if entry.dir_index > 0 else base
            files.append(os.path.normpath(os.path.join(base, folder, name)))
        for row in program.get_entries():
            state = row.state
            if state is None or state.end_sequence:
                continue
            file = files[state.file - 1] if 0 < state.file <= len(files) else "?"
            rows.append((state.address, file, state.line))
    rows.sort(key=lambda r: r[0])
    return rows


def _dwarf_names(elf) -> tuple[dict[str, int], set[str], list[Location]]:
    """The enum constants the sources declare, the functions that take parameters (a
    subprogram with a formal parameter: called with no arguments, it would run on garbage),
    and the memory locations of the objects in RAM (``_locations``)."""
    out: dict[str, int] = {}
    takes_args: set[str] = set()
    locations: list[Location] = []
    for cu in elf.get_dwarf_info().iter_CUs():
        for die in cu.iter_DIEs():
            if die.tag == "DW_TAG_enumerator" and "DW_AT_const_value" in die.attributes:
                out[_name(die)] = die.attributes["DW_AT_const_value"].value
            elif (die.tag == "DW_TAG_subprogram" and "DW_AT_name" in die.attributes
                  and any(c.tag == "DW_TAG_formal_parameter" for c in die.iter_children())):
                takes_args.add(_name(die))
            elif die.tag == "DW_TAG_variable":
                _variable(die, locations)
    seen: set[int] = set()
    unique = []
    for loc in sorted(locations):
        if loc[0] >= RAM_BASE and loc[0] not in seen:  # a variable in two CUs' DWARF: once
            seen.add(loc[0])
            unique.append(loc)
    return out, takes_args, unique


# Memory locations (C11 3.14): each scalar object, or a maximal run of adjacent non-zero-width
# bit-fields. A 64-bit scalar is one location; an array's elements and a struct's members are
# locations of their own; a union is one. (address, size, name as written: ``st.mode``).
Location = tuple[int, int, str]
MAX_LOCATIONS = 1 << 16  # leaves of one object; a larger one is left to the byte fallback
QUALIFIERS = ("DW_TAG_typedef", "DW_TAG_volatile_type", "DW_TAG_const_type",
              "DW_TAG_restrict_type", "DW_TAG_atomic_type")


def _variable(die, out: list[Location]) -> None:
    """The locations of a variable with a static address (``DW_OP_addr``)."""
    attr = die.attributes.get("DW_AT_location")
    expr = attr.value if attr is not None else None
    if not isinstance(expr, list) or len(expr) != 5 or expr[0] != 0x03:  # DW_OP_addr a4
        return
    decl = die
    if "DW_AT_type" not in die.attributes and "DW_AT_specification" in die.attributes:
        decl = die.get_DIE_from_attribute("DW_AT_specification")
    if "DW_AT_type" not in decl.attributes or "DW_AT_name" not in decl.attributes:
        return
    leaves: list[Location] = []
    _leaves(decl.get_DIE_from_attribute("DW_AT_type"), int.from_bytes(bytes(expr[1:]), "little"),
            _name(decl), leaves)
    if len(leaves) <= MAX_LOCATIONS:
        out += leaves


def _strip(die):
    while die is not None and die.tag in QUALIFIERS:
        die = die.get_DIE_from_attribute("DW_AT_type") if "DW_AT_type" in die.attributes else None
    return die


def _size(die) -> int | None:
    die = _strip(die)
    if die is None:
        return None
    if "DW_AT_byte_size" in die.attributes:
        return die.attributes["DW_AT_byte_size"].value
    if die.tag == "DW_TAG_array_type" and "DW_AT_type" in die.attributes:
        elem = _size(die.get_DIE_from_attribute("DW_AT_type"))
        counts = _counts(die)
        return elem * _product(counts) if elem is not None and counts else None
    return None


def _counts(array) -> list[int]:
    counts = []
    for sub in array.iter_children():
        if sub.tag != "DW_TAG_subrange_type":
            continue
        count = sub.attributes.get("DW_AT_count")
        upper = sub.attributes.get("DW_AT_upper_bound")
        if count is not None and isinstance(count.value, int):
            counts.append(count.value)
        elif upper is not None and isinstance(upper.value, int):
            counts.append(upper.value + 1)
        else:
            return []  # a flexible or variable-length array
    return counts


def _product(values: list[int]) -> int:
    n = 1
    for v in values:
        n *= v
    return n


def _leaves(type_die, addr: int, name: str, out: list[Location]) -> None:
    t = _strip(type_die)
    if t is None or len(out) > MAX_LOCATIONS:
        return
    if t.tag == "DW_TAG_array_type" and "DW_AT_type" in t.attributes:
        elem = t.get_DIE_from_attribute("DW_AT_type")
        esize, counts = _size(elem), _counts(t)
        if esize is None or not counts or esize * _product(counts) > 8 * MAX_LOCATIONS:
            return
        for j in range(_product(counts)):
            _leaves(elem, addr + j * esize, f"{name}[{j}]", out)
    elif t.tag in ("DW_TAG_structure_type", "DW_TAG_class_type"):
        _members(t, addr, name, out)
    else:  # a scalar (base, pointer, enum) or a union: one location
        size = _size(t)
        if size:
            out.append((addr, size, name))


def _members(struct, addr: int, name: str, out: list[Location]) -> None:
    """A struct's members; adjacent bit-fields are one location, unless a zero-width bit-field
    (absent from DWARF) parts them: a gap before a bit-field that would have fitted after the
    previous one (AAPCS packs it there otherwise)."""
    run: list = []  # [first bit, end bit, names]

    def flush() -> None:
        if run:
            lo, hi = run[0] // 8, (run[1] + 7) // 8
            out.append((addr + lo, hi - lo, f"{name}.{'/'.join(run[2])}"))
            run.clear()

    for m in struct.iter_children():
        if m.tag != "DW_TAG_member" or "DW_AT_type" not in m.attributes:
            continue
        at = m.attributes.get("DW_AT_data_member_location")
        off = at.value if at is not None and isinstance(at.value, int) else 0
        mname = _name(m) if "DW_AT_name" in m.attributes else "?"
        if "DW_AT_bit_size" not in m.attributes:
            flush()
            _leaves(m.get_DIE_from_attribute("DW_AT_type"), addr + off, f"{name}.{mname}", out)
            continue
        bits = m.attributes["DW_AT_bit_size"].value
        unit = (m.attributes["DW_AT_byte_size"].value if "DW_AT_byte_size" in m.attributes
                else _size(m.get_DIE_from_attribute("DW_AT_type")) or 4)
        if "DW_AT_data_bit_offset" in m.attributes:
            start = m.attributes["DW_AT_data_bit_offset"].value
        else:  # DWARF 4: from the storage unit's most significant bit (little-endian here)
            start = 8 * off + 8 * unit - m.attributes["DW_AT_bit_offset"].value - bits
        if run and start > run[1] and run[1] % (8 * unit) + bits <= 8 * unit:
            flush()  # it would have fitted: a zero-width bit-field parts them
        if run:
            run[1] = max(run[1], start + bits)
            run[2].append(mname)
        else:
            run[:] = [start, start + bits, [mname]]
    flush()


def _name(die) -> str:
    name = die.attributes["DW_AT_name"].value
    return name.decode() if isinstance(name, bytes) else name


def _disassemble(gcc: Path, elf: Path) -> dict[int, str]:
    objdump = gcc.with_name(gcc.name.replace("gcc", "objdump"))
    try:
        text = subprocess.run([str(objdump), "-d", "--no-show-raw-insn", str(elf)],
                              capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return {}
    out = {}
    for line in text.splitlines():
        m = re.match(r"^\s+([0-9a-f]+):\s+(\S.*)$", line)
        if m:
            out[int(m.group(1), 16)] = re.sub(r"\s+", " ", m.group(2).split(";")[0]).strip()
    return out
