"""The C front end on libclang: one translation unit in, plain facts (``facts.UnitFacts``) out.

Each unit is parsed with the project's real flags: its entry in ``compile_commands.json`` when
one is configured, else the configured include paths and defines under the embedded target triple
with ``-ffreestanding``. The PyPI ``libclang`` wheel ships no compiler builtin headers
(``stddef.h``, ``stdint.h``, ``stdarg.h``), so a resource directory is found on the machine
(Debian's ``libclang-common-*-dev``, or GCC's own include folder) and passed with ``-isystem``;
the C library's headers (``string.h``, ``stdio.h``) come from the target's cross compiler's
search list, or Debian's newlib/picolibc (``toolchain.c_library``).

A file that misses a header is parsed on (libclang's keep-going mode): the missing header is
one BG000, the functions whose bodies then hold errors are named (``UnitFacts.incomplete``,
BG002), and every rule runs on what parsed. A file the compile database does not list is parsed
with the ``[build]`` flags (``UnitFacts.fallback_flags``, BG003).

What libclang does not expose directly, and how it is read here:
- ``__attribute__((interrupt))`` is an opaque UNEXPOSED_ATTR: its tokens are read.
- A call with the wrong argument count survives only as a recovery expression (and an error,
  which becomes BG000): ``bodies`` still counts it as a call.
- Macro uses (``taskENTER_CRITICAL()``, ``local_irq_save(f)``) are seen through the detailed
  preprocessing record: a critical-section macro counts where it is expanded, once.
"""

from __future__ import annotations

import ast
import bisect
import fnmatch
import os
import re
import sys
from dataclasses import replace
from functools import cached_property, lru_cache
from pathlib import Path

from clang.cindex import (
    Cursor,
    CursorKind,
    Index,
    StorageClass,
    TranslationUnit,
    TranslationUnitLoadError,
    TypeKind,
)

from brickguard import masks, uses
from brickguard.bodies import ARRAYS, IT_SOURCE, BodyWalker, _always, touches_memory
from brickguard.build_flags import (
    BUILTIN_HEADER,
    RESOURCE_HINT,
    find_resource_dir,
    load_compile_commands,
)
from brickguard.config import Config, Registration
from brickguard.facts import (
    ArgFact,
    CallFact,
    DiagnosticFact,
    EntryFact,
    FunctionFact,
    ObjectFact,
    PriorityFact,
    UnitFacts,
    Where,
    c_int,
    irq_key,
)
from brickguard.hwfacts import HardwareWalker, Macros, macro_uses
from brickguard.masks import config_priorities
from brickguard.timeline import is_it_macro
from brickguard.toolchain import INSTALL_HINT, c_library

# Macros whose values the clock rules read as the unit sees them.
CONSTANTS = ("HSE_VALUE", "HSI_VALUE")

K = CursorKind
SDK_WARNINGS = {"-Wenum-conversion", "-Wint-conversion", "-Wincompatible-pointer-types"}
INTERRUPT_ATTRS = {"interrupt", "isr", "signal", "naked_isr"}
KEEP_GOING = 0x200  # CXTranslationUnit_KeepGoing: go on after a fatal error (a missing header)
_ALIGN_TEXT = re.compile(rb"(?:aligned|_Alignas|alignas)\s*(?:\(\s*([^()]*)\))?")


class FrontEnd:
    """Parses units under one configuration. Picklable: worker processes get a copy."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.resource_dir = find_resource_dir(config.resource_dir)
        self.libc = c_library(config.compiler)
        self.commands = (
            load_compile_commands(config.compile_commands) if config.compile_commands else {}
        )
        self.root = os.path.realpath(config.root) + os.sep

    def resource_hint(self, message: str) -> str | None:
        """What to do about a diagnostic the user's set-up causes, or None."""
        if self.resource_dir is None and BUILTIN_HEADER.search(message):
            return RESOURCE_HINT
        if "file not found" in message and not self.libc.include_dirs and _is_libc(message):
            return f"no C library headers for the target were found: {INSTALL_HINT}"
        if "file not found" in message and not self.commands:
            return ("add the header's folder to [build] include in brickguard.toml, or point "
                    "[build] compile_commands at the project's compile_commands.json")
        return None

    def args_for(self, file: str) -> tuple[str | None, list[str]]:
        """(working directory, clang arguments) for one translation unit."""
        c = self.config
        base = ["-ffreestanding", "-ferror-limit=0"]
        if self.resource_dir is not None:
            base += ["-isystem", str(self.resource_dir)]
        for folder in self.libc.include_dirs:  # after the builtin headers: clang's come first
            base += ["-idirafter", str(folder)]
        entry = self.commands.get(os.path.normpath(os.path.abspath(file)))
        if entry is not None:
            directory, argv = entry
            if not any(a.startswith(("-target", "--target")) for a in argv):
                base = ["-target", c.target, *base]
            return directory, [*base, *argv, *c.extra_flags]
        args = ["-target", c.target, *base]
        args += [f"-I{p}" for p in c.include]
        args += [f"-D{d}" for d in c.defines]
        return None, [*args, *c.extra_flags]

    def falls_back(self, file: str) -> bool:
        """A compile database is configured but does not list this file."""
        return bool(self.commands) and \
            os.path.normpath(os.path.abspath(file)) not in self.commands

    def parse(self, file: str) -> UnitFacts:
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
        directory, args = self.args_for(file)
        old = os.getcwd()
        try:
            if directory:
                os.chdir(directory)
            tu = _index().parse(
                file, args=args,
                options=TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD | KEEP_GOING,
            )
        except TranslationUnitLoadError as exc:
            tu = None
            unit = UnitFacts(file=file)
            unit.diagnostics.append(
                DiagnosticFact(Where(file, 1, 1), "fatal", f"cannot parse: {exc}")
            )
        finally:
            os.chdir(old)
        if tu is not None:
            try:
                unit = UnitContext(tu, file, self.config).extract()
            except Exception as exc:  # noqa: BLE001 - one file's crash must not end the run
                unit = UnitFacts(file=file)
                unit.diagnostics.append(DiagnosticFact(
                    Where(file, 1, 1), "fatal",
                    f"brickguard's analysis of this file failed ({type(exc).__name__}: {exc}); "
                    "no rule ran on it, the other files were checked: please report it with "
                    "this file"))
            unit.headers = sorted({
                i.include.name for i in tu.get_includes()
                if os.path.realpath(i.include.name).startswith(self.root)
            })
        unit.fallback_flags = self.falls_back(file)
        unit.diagnostics = [
            replace(d, hint=hint) if (hint := self.resource_hint(d.message)) else d
            for d in unit.diagnostics
        ]
        return unit


_LIBC = re.compile(r"'(?:assert|ctype|errno|inttypes|locale|math|setjmp|signal|stdio|stdlib|"
                   r"string|strings|time|wchar|wctype|fenv|complex|uchar|sys/\w+)\.h' "
                   r"file not found")


# A macro that defines an interrupt handler (ChibiOS's CH_IRQ_HANDLER / OSAL_IRQ_HANDLER /
# CH_FAST_IRQ_HANDLER, avr-libc's ISR(vector)): named for an IRQ or ISR handler, and not a
# handler's prologue or epilogue.
HANDLER_MACRO = re.compile(r"(?:^|_)(?:IRQ|ISR|INTERRUPT)_?HANDLER$|^ISR$")


def _is_libc(message: str) -> bool:
    return _LIBC.search(message) is not None
_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
        ast.LShift: lambda a, b: a << b, ast.RShift: lambda a, b: a >> b,
        ast.BitOr: lambda a, b: a | b, ast.BitAnd: lambda a, b: a & b,
        ast.FloorDiv: lambda a, b: a // b, ast.Div: lambda a, b: a // b}


def _fold(node: ast.AST) -> int:
    """An integer expression of literals and + - * / << >> | &, folded; ValueError else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        right = _fold(node.right)
        if isinstance(node.op, (ast.Div, ast.FloorDiv)) and right == 0:
            raise ValueError("division by zero")
        if isinstance(node.op, ast.LShift) and not 0 <= right < 64:
            raise ValueError("shift out of range")
        return _OPS[type(node.op)](_fold(node.left), right)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_fold(node.operand)
    raise ValueError("not a constant")


@lru_cache(maxsize=1)
def _index() -> Index:
    return Index.create()


class UnitContext:
    """Per-unit caches and the extraction walk over the unit's top level."""

    def __init__(self, tu: TranslationUnit, file: str, config: Config) -> None:
        self.tu = tu
        self.main_file = tu.spelling
        self.config = config
        self.enters = {a for a, _ in config.critical_sections}
        self.exits = {b for _, b in config.critical_sections}
        self.table_enters = frozenset(self.enters)  # before the bodies' routines join (masks)
        self.pairs: dict[str, set[str]] = {}
        # Routines that raise BASEPRI only (a zero-latency interrupt runs above them): the
        # profiles' levels, and the bodies' BASEPRI writes (masks.infer).
        self.level_routines = set(config.platform.critical_levels)
        self._inferred_levels: dict[str, int] = {}
        self.postures: set[str] = set()  # posture calls seen disabling (BodyWalker.posture)
        # (call, mode) of those told to disable by a mode (OSA_EnterCritical(kCriticalDisableInt))
        self.posture_modes: set[tuple[str, str]] = set()
        # function hash -> its parameters' names, those that say priority (inferred_priority)
        self.setter_params: dict[int, tuple[list[str], list[int]]] = {}
        # function hash -> the parameters its body hands to a listed setter (setter_body)
        self.setter_bodies: dict[int, tuple[int, int, bool] | None] = {}
        self.handover = set(config.platform.critical_handover)
        self.priority_setters = {r.function: r for r in config.platform.priority_setters}
        self.grouping_setters = {r.function: r for r in config.platform.priority_grouping}
        self.grouping: int | None = None  # the PRIGROUP a grouping setter sets, if constant
        self.encoded: list[PriorityFact] = []  # priorities an encoder's body computed
        self.mask_on = {a for a, _ in config.platform.critical_masks}
        self.mask_off = {b for _, b in config.platform.critical_masks}
        self.basepri = set(config.platform.basepri)
        # Functions whose body sets BASEPRI from a parameter (masks.MaskRoutine.param): name ->
        # the parameter's index; a call with a nonzero constant there raises BASEPRI.
        self.basepri_params: dict[str, int] = {}
        self.task_priority_args = config.platform.task_priority_args
        # semaphore calls (BG113): name -> "binary" | "mutex" | "take" | "give"
        self.lock_kinds = {n: k for k, names in config.platform.locks.items() for n in names}
        self._levels: dict[str, int] | None = None
        for a, b in config.critical_sections:
            self.pairs.setdefault(b, set()).add(a)
        self.regs = [("interrupt", r) for r in config.interrupt_registrations] + [
            ("task", r) for r in config.task_creators
        ]
        self.critical_macros: dict[int, str] = {}
        self._declared: set[str] | None = None
        self._irqn: set[str] | None = None  # the device header's IRQ numbers (vector_name)
        # __HAL_UART_ENABLE_IT / _DISABLE_IT uses: offset -> name
        self.it_macros: dict[int, str] = {}
        # Offset -> name of each use of a macro named for an interrupt handler's definition
        # (ChibiOS's OSAL_IRQ_HANDLER(VectorB0)): the function defined there is a handler.
        self.handler_macros: dict[int, str] = {}
        self.it_sources: dict[int, tuple[str, ...]] = {}  # ... -> the sources it names
        self.objects: dict[str, ObjectFact] = {}
        self._obj_cache: dict[int, ObjectFact | None] = {}
        self._sources: dict[str, bytes] = {}
        self._reg_cache: dict[str, list[tuple[str, Registration]]] = {}
        self._inert: dict[str, bool] = {}
        self.unit = UnitFacts(file=file)
        # Uses of the API names the profiles watch, as written (xSemaphoreGive is a macro over
        # xQueueGenericSend): offset in the main file -> name. Calls to arg_calls keep args.
        self.watched = config.platform.watched_calls()
        self.arg_calls = config.platform.arg_calls()
        self.api_macros: dict[int, tuple[str, Where]] = {}
        self._macro_values: dict[str, str | None] | None = None
        self._macro_defs: dict[str, Cursor] = {}
        self._top: list[Cursor] = []
        self._macros: Macros | None = None
        self._bodies: list[tuple[int, int, str]] = []  # main-file function bodies: (lo, hi, USR)

    @property
    def declared_names(self) -> set[str]:
        """The functions this unit declares and its macros: a call in the source text to any
        other name is to an undeclared function (``bodies`` reads it)."""
        if self._declared is None:
            self._declared = {c.spelling for c in self._top if c.kind == K.FUNCTION_DECL}
            self._declared |= self.macro_names()
        return self._declared

    def macro_at(self, c: Cursor) -> str | None:
        """The watched API macro used where ``c`` starts (xSemaphoreTake over
        xQueueSemaphoreTake), if any."""
        f = c.extent.start.file
        if f is None or f.name != self.main_file:
            return None
        hit = self.api_macros.get(c.extent.start.offset)
        return hit[0] if hit else None

    def source(self, name: str) -> bytes:
        if name not in self._sources:
            try:
                self._sources[name] = Path(name).read_bytes()
            except OSError:
                self._sources[name] = b""
        return self._sources[name]

    def inert(self, fn: Cursor) -> bool:
        """Whether a called function's body is in sight and touches no memory
        (``bodies.touches_memory``): no compiler barrier. A body not in this unit may do
        anything."""
        usr = fn.get_usr()
        if usr not in self._inert:
            d = fn.get_definition()
            body = next((ch for ch in d.get_children() if ch.kind == K.COMPOUND_STMT),
                        None) if d is not None else None
            self._inert[usr] = body is not None and not touches_memory(body)
        return self._inert[usr]

    def registrations_for(self, name: str) -> list[tuple[str, Registration]]:
        if name not in self._reg_cache:
            self._reg_cache[name] = [
                (kind, r) for kind, r in self.regs if fnmatch.fnmatchcase(name, r.function)
            ]
        return self._reg_cache[name]

    def object_info(self, ref: Cursor) -> ObjectFact | None:
        h = ref.hash
        if h in self._obj_cache:
            return self._obj_cache[h]
        fact = None
        sc = ref.storage_class
        if ref.semantic_parent.kind == K.TRANSLATION_UNIT or sc in (
            StorageClass.STATIC,
            StorageClass.EXTERN,
        ):
            d = ref.get_definition() or ref
            t = ref.type.get_canonical()
            base = t
            while base.kind in ARRAYS:
                base = base.element_type.get_canonical()
            loc = d.location
            fact = ObjectFact(
                usr=ref.get_usr(),
                name=ref.spelling,
                where=Where(loc.file.name if loc.file else self.main_file, loc.line, loc.column),
                is_definition=d.is_definition(),
                size=t.get_size(),
                is_volatile=base.is_volatile_qualified() or t.is_volatile_qualified(),
                is_const=base.is_const_qualified() or t.is_const_qualified(),
                is_scalar=t.kind not in (*ARRAYS, TypeKind.RECORD),
                is_atomic=base.kind == TypeKind.ATOMIC or "_Atomic" in base.spelling,
                type=ref.type.spelling,
                align=max(self.declared_align(d), t.get_align()),
                in_function=(
                    ref.semantic_parent.get_usr()
                    if ref.semantic_parent.kind == K.FUNCTION_DECL else ""
                ),
                initialized=d.is_definition() and any(
                    ch.kind.is_expression() for ch in d.get_children()),
                fn_pointer=t.kind == TypeKind.POINTER and t.get_pointee().get_canonical().kind
                in (TypeKind.FUNCTIONPROTO, TypeKind.FUNCTIONNOPROTO),
            )
            old = self.objects.get(fact.usr)
            if old is None or (fact.is_definition and not old.is_definition):
                self.objects[fact.usr] = fact
        self._obj_cache[h] = fact
        return fact

    def extract(self) -> UnitFacts:
        unit = self.unit
        for d in self.tu.diagnostics:
            # Errors and fatal errors; warnings are the compiler's business, except the type
            # mismatches the SDK rules read (BG205); BG000 never reports a warning.
            if d.severity >= 3 or (d.severity == 2 and d.option in SDK_WARNINGS):
                loc = d.location
                where = Where(loc.file.name if loc.file else self.main_file, loc.line, loc.column)
                sev = {4: "fatal", 3: "error"}.get(d.severity, "warning")
                unit.diagnostics.append(DiagnosticFact(where, sev, d.spelling))

        unit.lines = self.source(self.main_file).count(b"\n")
        top = self._top = list(self.tu.cursor.get_children())
        if self.config.uses_only:  # the demo miner: API uses only, no interrupt analysis
            uses.collect(self)
            return unit
        for c in top:
            if c.kind == K.MACRO_INSTANTIATION and c.spelling in self.enters | self.exits:
                f = c.location.file
                if f is not None and f.name == self.main_file:
                    self.critical_macros[c.extent.start.offset] = c.spelling
            if c.kind == K.MACRO_INSTANTIATION and is_it_macro(c.spelling):
                f = c.location.file
                if f is not None and f.name == self.main_file:
                    self.it_macros[c.extent.start.offset] = c.spelling
                    text = self.source(f.name)[c.extent.start.offset:c.extent.end.offset]
                    self.it_sources[c.extent.start.offset] = tuple(sorted(set(
                        IT_SOURCE.findall(text.decode("utf-8", "replace")))))
            if c.kind == K.MACRO_INSTANTIATION and HANDLER_MACRO.search(c.spelling):
                f = c.location.file
                if f is not None and f.name == self.main_file:
                    self.handler_macros[c.extent.start.offset] = c.spelling
            if c.kind == K.MACRO_INSTANTIATION and c.spelling in self.watched:
                f = c.location.file
                if f is not None and f.name == self.main_file:
                    where = Where(f.name, c.location.line, c.location.column)
                    self.api_macros[c.extent.start.offset] = (c.spelling, where)
        self._macro_offsets = sorted(self.api_macros)
        self.add_mask_routines(masks.infer(self, top))
        for name, kind in masks.line_masks(self, top).items():
            (self.mask_on if kind == "disable" else self.mask_off).add(name)
        for c in top:
            if c.kind == K.FUNCTION_DECL:
                if c.is_definition() and not c.location.is_in_system_header:
                    self.function(c)
            elif c.kind == K.VAR_DECL and not c.location.is_in_system_header:
                self.vector_table(c)
                self.unit.priorities.extend(config_priorities(self, c))
        if self.encoded and self.grouping is not None:
            enc = {id(p) for p in self.encoded}
            unit.priorities = [replace(p, priority=self.preemption(p.priority))
                               if id(p) in enc else p for p in unit.priorities]
        unit.objects = list(self.objects.values())
        unit.lowest_priority = (1 << self.prio_bits) - 1
        unit.incomplete = self.incomplete(top)
        if self.config.collect_uses:
            uses.collect(self)
        self.hardware_constants()
        return unit

    def add_mask_routines(self, routines: dict[str, masks.MaskRoutine]) -> None:
        """The unit's own functions that mask or unmask interrupts (``masks.infer``) join the
        configured enter and exit routines: a call to one opens or closes a section like a
        call to ``__disable_irq`` or ``__set_PRIMASK``. An inferred exit (a restore of a saved
        state) closes whatever section was opened last, and every exit closes an inferred
        enter; the tables' own routines keep their meaning."""
        new_enters = set()
        for name, r in routines.items():
            if name in self.table_enters or name in self.exits:
                continue
            if r.param >= 0:
                self.basepri_params[name] = r.param
            if r.kind == "enter":
                self.enters.add(name)
                new_enters.add(name)
                if r.basepri:
                    self._inferred_levels[name] = self.priority_level(r.basepri)
                    self.level_routines.add(name)
            else:
                self.exits.add(name)
                self.pairs[name] = set()
        for name in self.exits:
            self.pairs.setdefault(name, set()).update(new_enters)
            if name not in self.table_exits:
                self.pairs[name].update(self.enters)
        self._levels = None

    def posture_routine(self, call: str, how: str) -> str:
        """The section routine an interrupt posture call stands for (``BodyWalker.posture``):
        ``tx_interrupt_control(disable)`` an enter, ``tx_interrupt_control(restore)`` an exit
        that closes it."""
        name = f"{call}({how})"
        if how == "disable":
            self.enters.add(name)
            for exit_ in self.exits:
                self.pairs.setdefault(exit_, set()).add(name)
        else:
            self.exits.add(name)
            self.pairs.setdefault(name, set()).update(self.enters)
        return name

    @cached_property
    def table_exits(self) -> frozenset[str]:
        return frozenset(b for _, b in self.config.critical_sections)

    @cached_property
    def table_basepri(self) -> dict[str, int]:
        """The profiles' BASEPRI enter routines -> the register value they write (this unit's
        macros say it: configMAX_SYSCALL_INTERRUPT_PRIORITY), where it is known."""
        out = {}
        for name, value in self.config.platform.critical_levels.items():
            v = self.eval_const(value)
            if v:
                out[name] = v
        return out

    def incomplete(self, top: list[Cursor]) -> list[tuple[str, int]]:
        """(name, line) of the main file's functions whose bodies hold an error, in order."""
        lines = sorted(d.where.line for d in self.unit.diagnostics
                       if d.severity != "warning" and d.where.file == self.main_file)
        if not lines:
            return []
        out = []
        for c in top:
            if c.kind != K.FUNCTION_DECL or not c.is_definition():
                continue
            ext = c.extent
            if ext.start.file is None or ext.start.file.name != self.main_file:
                continue
            i = bisect.bisect_left(lines, ext.start.line)
            if i < len(lines) and lines[i] <= ext.end.line:
                out.append((c.spelling, c.location.line))
        return out

    def macros(self) -> Macros:
        if self._macros is None:
            self._macros = Macros(self._top)
        return self._macros

    def hardware_constants(self) -> None:
        """The watched macros used in the file and the clock constants (hwfacts.py)."""
        unit = self.unit
        unit.macro_uses = macro_uses(self, self.macros(), self._top, self._bodies)
        for name in CONSTANTS:
            if self.macros().get(name) is not None:
                unit.constants[name] = self.macros().value([name])

    def function(self, c: Cursor) -> None:
        usr, name = c.get_usr(), c.spelling
        body, attr = None, False
        for ch in c.get_children():
            if ch.kind == K.COMPOUND_STMT:
                body = ch
            elif ch.kind.is_attribute():
                words = {t.spelling for t in ch.get_tokens()}
                attr |= bool(words & INTERRUPT_ATTRS)
        loc = c.location
        self.unit.functions.append(
            FunctionFact(usr, name, Where(loc.file.name, loc.line, loc.column), attr,
                         body is not None and _forever(body))
        )
        if body is None:
            return
        line = self.vector_name(name)
        macro = self.handler_macros.get(c.extent.start.offset)
        if macro is not None:
            how = f"defined by {macro}({name}), a macro named for an interrupt handler"
            self.unit.entries.append(EntryFact(
                usr, name, "interrupt", how, Where(loc.file.name, loc.line, loc.column)))
        elif line:
            how = f"name {name} is a vector of the device header's {line}"
            self.unit.entries.append(EntryFact(
                usr, name, "interrupt", how, Where(loc.file.name, loc.line, loc.column)))
        w = BodyWalker(self, c, usr, name)
        w.run(body)
        self.unit.accesses.extend(w.access_facts())
        self.unit.calls.extend(w.call_facts())
        self.unit.calls.extend(self.macro_calls(body, w, usr))
        self.unit.entries.extend(w.entries)
        self.unit.section_issues.extend(w.section_issues())
        self.unit.priorities.extend(w.priorities)
        self.unit.indirect_calls.extend(w.indirect)
        self.unit.stored_functions.extend(w.stored)
        self.unit.passed_functions.extend(w.passed)
        self.unit.locks.extend(w.locks)
        self.hardware(c, body, usr)

    def hardware(self, c: Cursor, body: Cursor, usr: str) -> None:
        """The hardware facts of one main-file body, when its text names something watched."""
        ext = body.extent
        if ext.start.file is None or ext.start.file.name != self.main_file:
            return
        self._bodies.append((c.extent.start.offset, ext.end.offset, usr))
        src = self.source(self.main_file)
        if not HardwareWalker.wanted(src[ext.start.offset : ext.end.offset]):
            return
        hw = HardwareWalker(self, self.macros(), usr, self.main_file, src)
        hw.walk(body)
        self.unit.hw_calls.extend(hw.calls)
        self.unit.registers.extend(hw.registers)

    def macro_calls(self, body: Cursor, w: BodyWalker, usr: str) -> list[CallFact]:
        """Watched macros used in this body, as calls by the name written (after the call the
        macro expands to, when there is one, whose protection and arguments they share)."""
        if not self._macro_offsets or body.extent.start.file is None:
            return []
        if body.extent.start.file.name != self.main_file:
            return []
        lo, hi = body.extent.start.offset, body.extent.end.offset
        i = bisect.bisect_left(self._macro_offsets, lo)
        out = []
        for off in self._macro_offsets[i : bisect.bisect_right(self._macro_offsets, hi)]:
            name, where = self.api_macros[off]
            inner = w.calls.get(off)
            protected, args = (inner.protected, inner.args) if inner else (False, ())
            out.append(CallFact(usr, f"macro:{name}", name, where, protected, args))
        return out

    def arg_fact(self, a: Cursor, text: str | None = None) -> ArgFact:
        """An argument of a watched call: its text, and the variable whose storage it names."""
        if text is None:
            text = " ".join(t.spelling for t in a.get_tokens())
        text = " ".join(text.split())[:80]
        todo = [a]
        while todo:
            c = todo.pop()
            if c.kind == K.CXX_UNARY_EXPR:
                continue  # sizeof(buf) names buf but hands over a number
            ref = c.referenced if c.kind == K.DECL_REF_EXPR else None
            if ref is not None and ref.kind in (K.VAR_DECL, K.PARM_DECL):
                if ref.kind == K.PARM_DECL:
                    scope = "param"
                elif self.object_info(ref) is None:
                    scope = "local"
                else:
                    scope = "global" if ref.semantic_parent.kind != K.FUNCTION_DECL else "static"
                own = ref.type.get_canonical().kind in ARRAYS or "&" in text
                loc = ref.location
                decl = Where(loc.file.name if loc.file else self.main_file, loc.line, loc.column)
                return ArgFact(text, ref.spelling, ref.get_usr(), scope, own, decl)
            todo.extend(reversed(list(c.get_children())))
        return ArgFact(text)

    def declared_align(self, d: Cursor) -> int:
        """N of aligned(N) / _Alignas(N) on a declaration: 0 when none, -1 when unreadable
        (libclang exposes the attribute, not its value: the source text is read)."""
        for ch in d.get_children():
            if ch.kind != K.ALIGNED_ATTR or ch.extent.start.file is None:
                continue
            src = self.source(ch.extent.start.file.name)
            m = _ALIGN_TEXT.match(src, ch.extent.start.offset)
            if m is None:
                return -1
            if m.group(1) is None:
                return 8  # bare aligned: the target's largest alignment
            return self._eval_int(m.group(1).decode("utf-8", "replace"))
        return 0

    @property
    def levels(self) -> dict[str, int]:
        """Enter routines that raise BASEPRI -> the priority they mask from (this unit's
        macros say the value: configMAX_SYSCALL_INTERRUPT_PRIORITY), where it is known."""
        if self._levels is None:
            self._levels = {n: self.priority_level(v) for n, v in self.table_basepri.items()}
            self._levels.update(self._inferred_levels)
        return self._levels

    def macro_name(self, text: str) -> str:
        """``text`` when it is one identifier this unit defines as a macro, else ""."""
        text = text.strip()
        if not re.fullmatch(r"[A-Za-z_]\w*", text) or self.macro_value(text) is None:
            return ""
        return text

    def irq_macro(self, text: str) -> str:
        """The interrupt line an IRQ number macro names, for a mask call whose argument is not
        an IRQn enumerator: TI's ``Interrupt_disableInterrupt(INT_EUSCIA0)`` (hw_ints.h /
        the device header, ``#define INT_EUSCIA0 (32)``) masks ``EUSCIA0_IRQHandler``'s line.
        "" when the text is not a macro of this unit (a variable names no line known here)."""
        text = self.macro_name(text)
        return irq_key(text[4:] if text.startswith("INT_") else text) if text else ""

    def priority_level(self, basepri: int) -> int:
        """A BASEPRI register value -> the preemption priority number it masks from (the NVIC
        keeps a priority in the top __NVIC_PRIO_BITS of a byte: 0x50 is 5 with 4 bits)."""
        return basepri >> max(0, 8 - self.prio_bits)

    def preemption(self, level: int) -> int:
        """A priority level (the top ``__NVIC_PRIO_BITS`` of the register byte) with its
        sub-priority bits cleared under the grouping set (PRIGROUP g: bits g..0 of the byte
        are sub-priority), so two handlers compare as they pre-empt: with 6 bits and g = 3,
        levels 40 and 41 (pre-emption 10, sub-priorities 0 and 1) are one level."""
        bits = self.prio_bits
        sub = max(0, min(bits, (self.grouping or 0) + bits - 7))
        return (level >> sub) << sub

    @property
    def prio_bits(self) -> int:
        """The priority bits the NVIC implements (``__NVIC_PRIO_BITS``, FreeRTOS's
        ``configPRIO_BITS``; 4 when the unit says neither)."""
        return self.eval_const("__NVIC_PRIO_BITS") or self.eval_const("configPRIO_BITS") or 4

    def eval_const(self, text: str, depth: int = 0) -> int | None:
        """An integer constant expression written with this unit's macros, or None."""
        for _ in range(8):  # expand macro names, a few levels deep
            new = re.sub(r"\b[A-Za-z_]\w*\b",
                         lambda m: self.macro_value(m.group(0)) or m.group(0), text)
            if new == text:
                break
            text = new
        text = re.sub(r"\(\s*(?:(?:unsigned|signed)\s*)?(?:\w+_t|char|short|int|long)?\s*\)",
                      "", text)
        text = re.sub(r"(?<=[0-9a-fA-Fx])[uUlL]+\b", "", text)
        try:
            return _fold(ast.parse(text.strip(), mode="eval").body)
        except (SyntaxError, ValueError, RecursionError):
            return None

    def _eval_int(self, text: str, depth: int = 0) -> int:
        text = text.strip()
        lit = re.fullmatch(r"(0x[0-9a-fA-F]+|\d+)[uUlL]*", text)
        if lit:
            return c_int(lit.group(1))
        value = self.macro_value(text)
        if depth < 4 and value is not None:
            return self._eval_int(value.strip("()"), depth + 1)
        return -1

    def macro_value(self, name: str) -> str | None:
        """The replacement tokens of macro ``name`` in this unit, or None (read on first use:
        tokenising every definition of a unit costs more than the analysis needs)."""
        if self._macro_values is None:
            self._macro_defs = {c.spelling: c for c in self._top
                                if c.kind == K.MACRO_DEFINITION}
            self._macro_values = {}
        if name not in self._macro_values:
            c = self._macro_defs.get(name)
            toks = [t.spelling for t in c.get_tokens()] if c is not None else []
            self._macro_values[name] = " ".join(toks[1:]) if len(toks) >= 2 else None
        return self._macro_values[name]

    def vector_name(self, name: str) -> str:
        """The device header's IRQ number ``X_IRQn`` when ``name`` is ``X_Handler`` (the CMSIS
        vector naming of Microchip SAM's ``TC3_Handler``, ``SERCOM0_2_Handler``...), else "".
        A function ``Error_Handler`` is no vector: no device defines ``Error_IRQn``."""
        if not name.endswith("_Handler"):
            return ""
        if self._irqn is None:
            self._irqn = {d.spelling for c in self._top if c.kind == K.ENUM_DECL
                          for d in c.get_children()
                          if d.kind == K.ENUM_CONSTANT_DECL and d.spelling.endswith("_IRQn")}
        line = name[: -len("_Handler")] + "_IRQn"
        return line if line in self._irqn else ""

    def macro_names(self) -> set[str]:
        self.macro_value("")
        return set(self._macro_defs)

    def vector_table(self, c: Cursor) -> None:
        """An array named like a vector table, or placed in a vector section, or a Zephyr ISR
        list entry: its functions are interrupt handlers (task entries excepted)."""
        named = "vector" in c.spelling.lower()
        in_section = isr_list = False
        for ch in c.get_children():
            if ch.kind.is_attribute():
                text = " ".join(t.spelling for t in ch.get_tokens())
                in_section |= "vector" in text.lower()
                # Zephyr: IRQ_CONNECT(irq, prio, isr, arg, flags) declares a struct _isr_list
                # {irq, flags, &isr, arg} in section .intList, from which the build generates
                # the ISR table (include/zephyr/sw_isr_table.h, Z_ISR_DECLARE).
                isr_list |= "intList" in text
        if isr_list:
            kind = "connected with IRQ_CONNECT (an _isr_list entry in .intList)"
        elif (named or in_section) and c.type.get_canonical().kind in ARRAYS:
            kind = f"in vector table {c.spelling}"
        else:
            return
        if c.location.file is None:
            return
        loc = c.location
        for d in c.walk_preorder():
            if d.kind == K.DECL_REF_EXPR and d.referenced is not None:
                fn = d.referenced
                if fn.kind == K.FUNCTION_DECL and fn.spelling not in self.config.task_entries:
                    where = Where(loc.file.name, d.location.line, d.location.column)
                    self.unit.entries.append(
                        EntryFact(
                            fn.get_usr(), fn.spelling, "interrupt", kind, where,
                        )
                    )


def _forever(body: Cursor) -> bool:
    """Whether a function body's own statements hold a loop no condition ends: ``for (;;)``,
    ``while (1)``, ``do ... while (1)`` (``bodies._always``), the shape of a thread's body."""
    for st in body.get_children():
        ch = list(st.get_children())
        if st.kind == K.FOR_STMT and len(ch) == 1:
            return True
        if st.kind == K.WHILE_STMT and ch and _always(ch[0]):
            return True
        if st.kind == K.DO_STMT and len(ch) == 2 and _always(ch[1]):
            return True
    return False
