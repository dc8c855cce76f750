"""The whole-program model: every unit's facts merged, the call graph, and who runs where.

Units are merged by USR (clang's cross-unit identity: external functions and objects share it,
``static`` ones carry their file). A callee known only by a declaration is matched to the one
definition of that name when there is exactly one.

Contexts, in Polyspace's words:
- *interrupts*: handlers found by name (``*_IRQHandler``...), by ``__attribute__((interrupt))``,
  in a vector table, registered by a call (``request_irq``...), HAL callbacks that the HAL's own
  handlers call (``HAL_I2C_SlaveRxCpltCallback``...), or functions a handler written in assembly
  calls (the profiles' ``from_asm``: PendSV -> ``vTaskSwitchContext``);
- *tasks*: entry points (``main``) and functions handed to a task-creation call.
Every function gets the contexts that reach it through the call graph. A function no entry point
reaches runs in task context ("thread mode"): it is not known to run in an interrupt.

An access counts as *protected on the task side* when it is inside a critical section, or when its
function is only ever called, from task context, inside one (transitively: callers of callers).
An interrupt handler preempts another only when both priorities are known (``Program.priority``)
and its own is more urgent (a lower number); equal ones do not. Two tasks racing each other is not
an interrupt problem and is not checked here.

The *interrupt timeline* (module ``timeline``), per interrupt source, marks for each access the
gates still closed there (``Access.closed``): before any interrupt can fire (bare-metal ``main``
before its first enabling call, and the functions it calls only then: ``Access.before_start``),
before a handler's own NVIC line is enabled, before its HAL peripheral family is started in
interrupt or DMA mode. Interrupt priorities come from ``[interrupts] priorities`` and the
code's ``HAL_NVIC_SetPriority``/``NVIC_SetPriority`` calls with constants (``Program.priority``).

What several rules derive from the model (the races, the call chains from interrupt entries, the
DMA starts, the SDK findings) are cached properties of ``Program``, each computed on first use by
its own module (``races``, ``chains``, ``dma``, ``sdk.engine``).
"""

from __future__ import annotations

import fnmatch
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TypeVar

from brickguard import callbacks as _callbacks
from brickguard import chains as _chains
from brickguard import dma as _dma
from brickguard import races as _races
from brickguard import stack as _stack
from brickguard import timeline as _timeline
from brickguard.chains import Chain
from brickguard.chip import clock as _clock
from brickguard.chip import gpio as _chip
from brickguard.chip.clock import ClockTree
from brickguard.chip.gpio import Chip
from brickguard.config import Config
from brickguard.dma import DmaStart
from brickguard.facts import (
    PARAM,
    TICK,
    AccessFact,
    CallFact,
    DiagnosticFact,
    FunctionFact,
    HardwareFacts,
    LockFact,
    ObjectFact,
    PassedFunction,
    SectionIssue,
    UnitFacts,
    irq_key,
    join_paths,
)
from brickguard.findings import Finding
from brickguard.races import Race, Shared
from brickguard.sdk import engine as sdk_engine
from brickguard.sdk.classify import SdkFinding
from brickguard.stack import StackReport

_LINE_AFFIX = re.compile(r"^(?:nvic_|int_)|_(?:irqhandler|irqn|irq|isr|handler)$")


def line_word(name: str) -> str:
    """A line's or handler's name reduced to the peripheral it names, case folded, without
    the words the conventions wrap it in: ``NVIC_TIM2_IRQ``, ``TIM2_IRQn``, ``tim2_isr`` and
    ``TIM2_IRQHandler`` are all ``tim2``."""
    word = name.lower()
    while (shorter := _LINE_AFFIX.sub("", word, count=1)) != word and shorter:
        word = shorter
    return word


@dataclass(frozen=True)
class Context:
    name: str  # the entry function, e.g. "I2C1_EV_IRQHandler"; "thread mode" for unreached code
    kind: str  # "interrupt" | "task"
    how: str  # why it is an entry: "name matches *_IRQHandler", "created by xTaskCreate", ...
    task_priority: int | None = None  # a task's RTOS priority at creation (higher runs first)
    # An interrupt handler's line when its name does not say it (a callback a driver calls from
    # USART1's handler: "USART1"; ``callbacks``); "" to take it from the name.
    irq: str = ""
    # Zero-latency (Zephyr IRQ_ZERO_LATENCY): sections that only raise BASEPRI (irq_lock) do
    # not mask it; disabling interrupts outright (PRIMASK) does.
    unmasked: bool = False
    # Runs on another core, in parallel with the task code (a function handed to
    # multicore_launch_core1): no interrupt mask of this core holds it off, only a cross-core
    # lock that both sides take (``races``); it cannot run before its launch (``timeline``).
    concurrent: bool = False
    # A callback handed to a driver call: the global its first argument points to (the driver
    # instance, FSP's ``&g_uart0_ctrl``); a later call on it may start what the callback
    # reports (``order``). "" when not known.
    instance: str = ""
    # A callback handed over at a call (``callbacks``): the function cannot run before that
    # call keeps it, so ``timeline`` puts it behind a ``run:`` gate only that call opens.
    armed: bool = False
    # An interrupt's preemption priority level as the static model has it (``Program.priority``:
    # [interrupts] priorities, setter calls, config structs, registrations), filled in only on
    # the contexts ``analyze`` exports for ``check --confirm`` (soak injects it at this level);
    # None on the program's own contexts.
    level: int | None = None
    # Run by the RTOS's software-timer task (``[tasks] timers``): it preempts task code as an
    # interrupt does, and a scheduler lock (``sections.SCHEDULER``) holds it off too.
    timer_task: bool = False

    @property
    def is_interrupt(self) -> bool:
        return self.kind == "interrupt"


THREAD_MODE = Context("thread mode", "task", "not reached from any interrupt handler or task")


@dataclass(frozen=True)
class Access:
    fact: AccessFact
    contexts: frozenset[Context]
    task_protected: bool  # in a critical section, or its function is only called inside one
    # The interrupt gates closed where it is made (``timeline``): "*" closed, no interrupt can
    # fire yet; "irq:USART1" closed, not USART1's handler; "fam:I2C", no I2C interrupt source.
    closed: frozenset[str] = frozenset()
    # Gates a handler has closed behind itself before this access (``timeline.shut_behind``):
    # its family's sources disabled, no interrupt of that family can come after it.
    shut: frozenset[str] = frozenset()

    @property
    def before_start(self) -> bool:
        """Made before any interrupt can fire."""
        return _timeline.ALL in self.closed

    @property
    def in_interrupt(self) -> bool:
        return any(c.is_interrupt for c in self.contexts)

    @property
    def in_task(self) -> bool:
        return any(not c.is_interrupt for c in self.contexts)

    def context_names(self, interrupt: bool) -> str:
        names = sorted(c.name + (" (on another core)" if c.concurrent else
                                 " (in the RTOS timer task)" if c.timer_task else "")
                       for c in self.contexts if c.is_interrupt == interrupt)
        return ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")


@dataclass
class Program(HardwareFacts):  # the hardware facts (BG3xx, stack depth): every unit's merged
    config: Config  # the configuration the program was built (and its analyses run) under
    objects: dict[str, ObjectFact] = field(default_factory=dict)
    functions: dict[str, FunctionFact] = field(default_factory=dict)
    calls: list[CallFact] = field(default_factory=list)
    accesses: list[Access] = field(default_factory=list)
    entries: dict[str, Context] = field(default_factory=dict)  # function USR -> its context
    contexts: dict[str, frozenset[Context]] = field(default_factory=dict)  # function USR ->
    section_issues: list[SectionIssue] = field(default_factory=list)
    protected_functions: set[str] = field(default_factory=set)
    units: list[UnitFacts] = field(default_factory=list)  # BG000 and BG2xx read diagnostics
    locks: list[LockFact] = field(default_factory=list)  # semaphores made, taken, given (BG113)
    # IRQ name without its suffix ("USART1") -> the priority the code sets it to with constants
    # (None: set to different values in different places, so not known).
    priorities: dict[str, int | None] = field(default_factory=dict)
    functions_by_name: dict[str, list[str]] = field(default_factory=dict)  # name -> USRs
    # gate -> (function USR -> walk number of its first call opening it), for the functions
    # that run with the gate closed until then (``timeline.closed_until``; ``order``)
    closed_until: dict[str, dict[str, int]] = field(default_factory=dict)

    @classmethod
    def build(cls, units: Iterable[UnitFacts], config: Config) -> Program:
        p = cls(config)
        units = p.units = units if isinstance(units, list) else list(units)
        raw_accesses: dict[tuple, AccessFact] = {}
        calls: dict[tuple, CallFact] = {}
        issues: dict[tuple, SectionIssue] = {}
        entry_facts = []
        for u in units:
            for f in u.functions:
                p.functions.setdefault(f.usr, f)
            for o in u.objects:
                old = p.objects.get(o.usr)
                if old is None or (o.is_definition and not old.is_definition):
                    p.objects[o.usr] = o
            # A header's inline function is walked in every unit that includes it: keep one.
            for a in u.accesses:
                raw_accesses.setdefault((a.obj, a.function, a.where, a.kind), a)
            for c in u.calls:
                calls.setdefault((c.caller, c.callee, c.where), c)
            for s in u.section_issues:
                issues.setdefault((s.kind, s.where), s)
            entry_facts.extend(u.entries)
            p.add_hardware(u)
            p.locks.extend(x for x in u.locks if x not in p.locks)
            for pf in u.priorities:
                key = irq_key(pf.irq)
                old = p.priorities.get(key, pf.priority)
                p.priorities[key] = pf.priority if old == pf.priority else None
        by_name: dict[str, list[str]] = defaultdict(list)
        for f in p.functions.values():
            by_name[f.name].append(f.usr)

        def resolve(usr: str, name: str) -> str:
            if usr in p.functions:
                return usr
            same = by_name.get(name, [])
            return same[0] if len(same) == 1 else usr

        p.calls = [replace(c, callee=resolve(c.callee, c.callee_name)) for c in calls.values()]
        p.section_issues = list(issues.values())
        p.functions_by_name = dict(by_name)
        p.passed_functions = p._handed_on(resolve)
        p._find_entries(config, entry_facts, resolve)
        p.entries.update(_callbacks.inferred_entries(p, Context))
        p._lines_from_priorities(resolve)
        p._reach()
        unnamed = _callbacks.unnamed_entries(p, Context)
        if unnamed:  # callbacks handed over by task code to calls whose words say nothing
            p.entries.update(unnamed)
            p.contexts = {}
            p._reach()
        stored = _callbacks.stored_callbacks(p, Context)
        if stored:  # callbacks only interrupt handlers call through a field: reach again
            p.entries.update(stored)
            p.contexts = {}
            p._reach()
        p._protect()
        early = p.closed_until = _timeline.closed_until(p)
        gated = {usr for fs in early.values() for usr in fs}
        through = p._param_targets()

        def add(a: AccessFact, contexts: frozenset[Context] | None = None,
                masked: bool = False) -> None:
            p.accesses.append(
                Access(
                    a,
                    contexts or p.contexts.get(a.function, frozenset({THREAD_MODE})),
                    a.protected or masked or a.function in p.protected_functions,
                    frozenset(g for g, fs in early.items()
                              if a.function in fs and a.seq < fs[a.function])
                    if a.function in gated else frozenset(),
                )
            )

        for a in raw_accesses.values():
            if a.obj.startswith(PARAM):
                b = p._through_param(a, through)
                if b is None:
                    for fact, contexts, masked in p._through_sites(a, through):
                        add(fact, contexts, masked)
                    continue
                a = b
            add(a)
        p.accesses = _timeline.shut_behind(p, _timeline.handed_back(p, p.accesses))
        return p

    def _find_entries(self, config: Config, entry_facts, resolve) -> None:
        registrars = [r.function for r in config.interrupt_registrations]
        for f in self.functions.values():
            pat = _match(f.name, config.interrupt_patterns)
            if f.name in config.task_entries:
                self.entries[f.usr] = Context(f.name, "task", "task entry point")
            elif pat:
                self.entries[f.usr] = Context(f.name, "interrupt", f"name matches {pat}")
            elif f.interrupt_attr:
                self.entries[f.usr] = Context(f.name, "interrupt", "__attribute__((interrupt))")
            elif _match(f.name, config.platform.from_asm):
                how = "called from an interrupt handler written in assembly (profile from_asm)"
                self.entries[f.usr] = Context(f.name, "interrupt", how)
            elif (_match(f.name, config.interrupt_callbacks) and not _match(f.name, registrars)
                  and "RegisterCallback" not in f.name):  # HAL_*_(Un)RegisterCallback: APIs
                how = "HAL callback, called from the peripheral's interrupt handler"
                self.entries[f.usr] = Context(f.name, "interrupt", how)
        for e in entry_facts:
            usr = resolve(e.function, e.name)
            old = self.entries.get(usr)
            if old is None or (e.kind == "interrupt" and not old.is_interrupt):
                self.entries[usr] = Context(e.name, e.kind, e.how, e.priority, e.irq,
                                            e.unmasked)
            elif (e.irq or e.unmasked) and old.is_interrupt:  # what its registration says
                self.entries[usr] = replace(old, irq=old.irq or e.irq,
                                            unmasked=old.unmasked or e.unmasked)

    def _handed_on(self, resolve) -> list[PassedFunction]:
        """The passed functions with each handed on through a wrapper: a function of the
        program's own that stores its parameter N in a field of a struct it hands to a call
        (``irq_register(src, irq, cb, prio)`` with ``cfg.pfnCallback = cb;
        INTC_IrqSignIn(&cfg)``) hands that call every function its callers pass as argument
        N, at their call sites (where the callback is armed), with the line the wrapper
        stores beside it when that is one of its parameters too (``cfg.enIRQn = irq``)."""
        inner = [pf for pf in self.passed_functions if pf.param >= 0]
        if not inner:
            return self.passed_functions
        out = [pf for pf in self.passed_functions if pf.param < 0]
        more = []
        for pf in inner:
            for q in out:
                if q.arg != pf.param or resolve(q.callee, "") != pf.function:
                    continue
                line = pf.line
                if line.startswith(PARAM):
                    at = int(line[len(PARAM):])
                    line = q.arg_lines[at] if at < len(q.arg_lines) else ""
                    line = "" if line.startswith(PARAM) else line
                more.append(replace(pf, callee=q.callee, function=q.function, where=q.where,
                                    param=-1, line=line, through=pf.callee,
                                    arg_lines=q.arg_lines))
        return out + more

    def _lines_from_priorities(self, resolve) -> None:
        """A handler whose name says no line with a priority, handed to a call whose first
        argument is an IRQ number constant that a priority setter names too, runs on that
        line: NuttX's ``irq_attach(STM32_IRQ_TIM3, tim3_isr, NULL)`` and
        ``up_prioritize_irq(STM32_IRQ_TIM3, 0x80)`` give tim3_isr TIM3's priority. The constant
        is the one link; a handler handed over with two such lines gets neither."""
        lines: dict[str, set[str]] = defaultdict(set)
        for pf in self.passed_functions:
            if pf.instance and irq_key(pf.instance) in self.priorities:
                lines[resolve(pf.function, "")].add(pf.instance)
        for usr, found in lines.items():
            ctx = self.entries.get(usr)
            if (ctx is not None and ctx.is_interrupt and not ctx.irq and len(found) == 1
                    and irq_key(ctx.name) not in self.priorities):
                self.entries[usr] = replace(ctx, irq=irq_key(found.pop()))

    def _reach(self) -> None:
        callees: dict[str, set[str]] = defaultdict(set)
        for c in self.calls:
            callees[c.caller].add(c.callee)
        reached: dict[str, set[Context]] = defaultdict(set)
        for usr, ctx in self.entries.items():
            todo, seen = [usr], {usr}
            while todo:
                f = todo.pop()
                reached[f].add(ctx)
                for g in callees.get(f, ()):
                    if g not in seen:
                        seen.add(g)
                        todo.append(g)
        for usr in self.functions:
            self.contexts[usr] = frozenset(reached.get(usr) or {THREAD_MODE})
        for usr, ctxs in reached.items():
            self.contexts.setdefault(usr, frozenset(ctxs))

    def _protect(self) -> None:
        """Functions that task context only ever calls inside a critical section, to a fixpoint:
        every level of callers counts, so a helper of a helper is covered too."""
        task_sites: dict[str, list[CallFact]] = defaultdict(list)
        for c in self.calls:
            if any(not x.is_interrupt for x in self.contexts.get(c.caller, {THREAD_MODE})):
                task_sites[c.callee].append(c)
        changed = True
        while changed:
            changed = False
            for callee, sites in task_sites.items():
                if callee in self.protected_functions or callee in self.entries:
                    continue
                if all(s.protected or s.caller in self.protected_functions for s in sites):
                    self.protected_functions.add(callee)
                    changed = True

    def _param_targets(self) -> dict[tuple[str, int], tuple[str, tuple[str, ...]]]:
        """(function USR, parameter index) -> the global (USR, path) that every call site of the
        function passes there (``push(&rx, b)``, ``push(rb, b)`` with ``rb = &rx``); a parameter
        handed on (``push(r, b)`` in a helper whose own parameter ``r`` is that) is what the
        helper's callers pass, to a fixpoint. A parameter some site passes anything else to,
        or a function called from nowhere, is left out."""
        sites: dict[str, list[CallFact]] = defaultdict(list)
        for c in self.calls:
            sites[c.callee].append(c)
        out: dict[tuple[str, int], tuple[str, tuple[str, ...]]] = {}
        for _ in range(8):  # hand-on chains are short
            changed = False
            for fn, calls in sites.items():
                if fn not in self.functions:
                    continue
                for n in range(max((len(c.targets) for c in calls), default=0)):
                    got = {self._passed(c, n, out) for c in calls}
                    if len(got) == 1 and None not in got:
                        target = next(iter(got))
                        if out.get((fn, n)) != target:
                            out[(fn, n)] = target
                            changed = True
            if not changed:
                break
        return out

    def _passed(self, c: CallFact, n: int, known: dict) -> tuple[str, tuple[str, ...]] | None:
        """The global argument ``n`` of call ``c`` points into, as far as known."""
        t = c.targets[n] if n < len(c.targets) else None
        if t is None:
            return None
        if t[0].startswith(PARAM):
            up = known.get((c.caller, int(t[0][len(PARAM):])))
            return (up[0], join_paths(up[1], t[1])) if up is not None else None
        return t if t[0] in self.objects else None

    def _through_sites(self, a: AccessFact, through: dict
                       ) -> list[tuple[AccessFact, frozenset[Context], bool]]:
        """An access through a parameter whose call sites pass different globals (a helper
        ``bump(&stats.rx)`` in the handler, ``bump(which)`` in main): one access per place
        passed, in the contexts of the callers that pass it, masked when every such call is
        (inside a critical section, or in a function only called inside one). None when some
        site passes something not known, or the function is an entry of its own."""
        n = int(a.obj[len(PARAM):])
        sites = self.calls_by_callee.get(a.function, [])
        if not sites or a.function in self.entries:
            return []
        groups: dict[tuple, set[Context]] = defaultdict(set)
        masked: dict[tuple, bool] = {}
        for c in sites:
            t = self._passed(c, n, through)
            if t is None:
                return []
            key = (t[0], tuple(t[1]))
            groups[key] |= self.contexts.get(c.caller, {THREAD_MODE})
            masked[key] = masked.get(key, True) and (
                c.protected or c.caller in self.protected_functions)
        out = []
        for target, contexts in groups.items():
            fact = self._through_param(a, {(a.function, n): target})
            if fact is not None:
                out.append((fact, frozenset(contexts), masked[target]))
        return out

    def _through_param(self, a: AccessFact, through: dict) -> AccessFact | None:
        target = through.get((a.function, int(a.obj[len(PARAM):])))
        if target is None:
            return None
        obj = self.objects[target[0]]
        path = join_paths(target[1], a.path)
        return replace(a, obj=obj.usr, path=path, whole=not path,
                       is_volatile=a.is_volatile or obj.is_volatile,
                       size=a.size if a.size > 0 else obj.size)

    def priority(self, ctx: Context) -> int | None:
        """An interrupt context's preemption priority (lower preempts higher), from
        ``[interrupts] priorities`` or the code's HAL_NVIC_SetPriority/NVIC_SetPriority calls
        with constants; None when not known (then it is taken not to preempt, nor be
        preempted by, another handler)."""
        if not ctx.is_interrupt:
            return None
        if ctx.name in self.config.interrupt_priorities:
            return self.config.interrupt_priorities[ctx.name]
        key = ctx.irq or irq_key(ctx.name)
        if key in self.priorities:
            return self.priorities[key]
        if key == TICK and self.units:
            # SysTick, at a priority the code does not set: the least urgent level, where
            # CMSIS's SysTick_Config and every RTOS port put it.
            return max(u.lowest_priority for u in self.units)
        return self.line_priorities.get(line_word(key))

    @cached_property
    def line_priorities(self) -> dict[str, int | None]:
        """The priorities by the peripheral word of their line (``line_word``): a line constant
        and a handler name that spell one peripheral in two conventions (libopencm3's
        ``NVIC_TIM2_IRQ`` and ``tim2_isr``) meet there. Two lines that reduce to one word with
        different priorities give it none."""
        out: dict[str, int | None] = {}
        for key, prio in self.priorities.items():
            word = line_word(key)
            out[word] = prio if out.get(word, prio) == prio else None
        return out

    # -- derived analyses, computed once, on first use ------------------------------------------
    @cached_property
    def gates(self) -> dict[Context, frozenset[str]]:
        """Each interrupt context's gates on the interrupt timeline (``timeline``)."""
        return _timeline.gates_of(self)

    @cached_property
    def registered_lines(self) -> dict[str, str]:
        """Handler USR -> the line its registration names, where a switch-on names it too
        (``irq_attach(STM32_IRQ_USART3, isr, arg)`` and ``up_enable_irq(STM32_IRQ_USART3)``)."""
        return _timeline.registered_lines(self)

    @cached_property
    def registered_line_names(self) -> frozenset[str]:
        """The lines of ``registered_lines`` (looked up per call by the timeline)."""
        return frozenset(self.registered_lines.values())

    @cached_property
    def launched(self) -> dict[tuple[str, object], set[str]]:
        """(callee USR, call site) -> the names of the other-core contexts that call launches
        (``Context.concurrent``; ``timeline``'s ``run:`` gates)."""
        out: dict[tuple[str, object], set[str]] = defaultdict(set)
        for pf in self.passed_functions:
            ctx = self.entries.get(pf.function) or self.entries.get(
                _callbacks.resolve(self, pf.function) or "")
            if ctx is not None and (ctx.concurrent or ctx.armed):
                out[(pf.callee, pf.where)].add(ctx.name)
        return dict(out)

    @cached_property
    def known_irqs(self) -> set[str]:
        """The interrupt lines the code names: given a priority, masked or enabled."""
        return set(self.priorities) | {c.irq for c in self.calls if c.irq}

    @cached_property
    def nvic_enables(self) -> set[str]:
        """The calls that unmask one interrupt line (``HAL_NVIC_EnableIRQ``)."""
        return {b for _, b in self.config.platform.critical_masks}

    @cached_property
    def section_exits(self) -> set[str]:
        return {b for _, b in self.config.critical_sections}

    @cached_property
    def calls_by_caller(self) -> dict[str, list[CallFact]]:
        """Function USR -> the calls it makes, in ``calls`` order (the timeline, BG101, BG501)."""
        return _grouped(self.calls, lambda c: c.caller)

    @cached_property
    def calls_by_caller_site(self) -> dict[tuple[str, object], list[CallFact]]:
        """(callee USR, call site) -> the calls made there (the one a PassedFunction names)."""
        return _grouped(self.calls, lambda c: (c.callee, c.where))

    @cached_property
    def calls_by_callee(self) -> dict[str, list[CallFact]]:
        """Function USR -> the calls made to it (the handlers' call-site protection)."""
        return _grouped(self.calls, lambda c: c.callee)

    @cached_property
    def handler_guards(self) -> dict[tuple[str, int], int | None]:
        """(function USR, priority) -> how its handler-side callers mask it (``races``): a
        memo the race analysis fills."""
        return {}

    @cached_property
    def accesses_by_function(self) -> dict[str, list[Access]]:
        """Function USR -> the accesses its body makes (BG101's flag hand-over)."""
        return _grouped(self.accesses, lambda a: a.fact.function)

    @cached_property
    def tests_by_function(self) -> dict[str, list[Access]]:
        """Function USR -> its accesses that test their object with a known sense (``if (!f)``,
        ``while (!ready) {}``, a ``switch``): what its arms know (``races``' ownership flags)."""
        return _grouped((a for a in self.accesses if a.fact.tests and a.fact.sense),
                        lambda a: a.fact.function)

    @cached_property
    def calls_by_name(self) -> dict[str, list[CallFact]]:
        """Callee name -> the calls made to it (a re-arming call looked up by name)."""
        return _grouped(self.calls, lambda c: c.callee_name)

    @cached_property
    def entry_functions(self) -> dict[Context, str]:
        """Each entry context -> the USR of its entry function (``entries`` inverted)."""
        return {ctx: usr for usr, ctx in self.entries.items()}

    @cached_property
    def accesses_by_object(self) -> dict[str, list[Access]]:
        return _races.accesses_by_object(self)

    @cached_property
    def shared_objects(self) -> list[Shared]:
        """Objects shared between interrupt and task context (BG101-BG104)."""
        return _races.shared_objects(self)

    @cached_property
    def races(self) -> list[Race]:
        """Racing task-side access sites, one per site, in source order (BG101-BG103)."""
        return _races.find_races(self)

    @cached_property
    def isr_chains(self) -> dict[str, Chain]:
        """Function USR -> the shortest call chain from an interrupt entry (BG110-BG112)."""
        return _chains.isr_chains(self)

    @cached_property
    def interrupt_calls(self) -> list[tuple[CallFact, Chain]]:
        """Calls made in interrupt context, with the chain to their caller (BG110, BG111)."""
        return _chains.interrupt_calls(self)

    @cached_property
    def dma_starts(self) -> list[DmaStart]:
        """DMA transfers started with a known buffer (BG501, BG502)."""
        return _dma.dma_starts(self)

    @cached_property
    def chip(self) -> Chip:
        """The target part's pin data and what the code configures on it (BG301-BG305)."""
        return _chip.load_chip(self)

    @cached_property
    def clock_trees(self) -> list[ClockTree]:
        """The clock set-ups the code makes with constants (BG310, BG311)."""
        return _clock.clock_trees(self)

    @cached_property
    def stack(self) -> StackReport:
        """Worst-case stack depth of every entry (BG510-BG512)."""
        return _stack.stack_report(self)

    @cached_property
    def sdk_findings(self) -> list[tuple[UnitFacts, SdkFinding]]:
        """Every unit's diagnostics classified against the configured SDKs (BG201-BG205)."""
        return sdk_engine.sdk_findings(self.units, self.config)

    @cached_property
    def demo_findings(self) -> list[Finding]:
        """The program held to the vendor's examples (BG401-BG404), when [demos] is set."""
        from brickguard.demos.check import demo_findings

        return demo_findings(self, self.config)

    @cached_property
    def claimed_diagnostics(self) -> set[DiagnosticFact]:
        """Diagnostics an enabled SDK rule reports, which BG000 leaves out."""
        return sdk_engine.claimed_diagnostics(self.sdk_findings, self.config)


def _match(name: str, patterns: list[str]) -> str | None:
    for p in patterns:
        if fnmatch.fnmatchcase(name, p):
            return p
    return None


T = TypeVar("T")
K = TypeVar("K")


def _grouped(items: Iterable[T], key: Callable[[T], K]) -> dict[K, list[T]]:
    """``items`` by ``key``, each group in the items' order (the per-function indexes)."""
    out: dict[K, list[T]] = defaultdict(list)
    for item in items:
        out[key(item)].append(item)
    return dict(out)
