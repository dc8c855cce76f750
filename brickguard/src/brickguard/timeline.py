"""The interrupt timeline, per interrupt source: from which program point each handler can fire.

After reset no interrupt can fire until the code lets one. An interrupt context is behind
*gates*, each opened by calls the code makes (``Program`` asks ``gates_of`` and ``closed_at``):

- ``*``: some interrupt. Any call that opens a gate opens it; while it is closed no interrupt
  can fire (``Access.before_start``). A context with no gate below is behind it alone.
  A call that may let any interrupt fire opens every gate: a critical-section exit, a call the
  profiles' ``enable`` globs name that the program does not define, and a function the program
  does not define that ``quiet`` does not name.
- ``irq:X``: the handler's own NVIC line (``USART1_IRQHandler`` -> ``irq:USART1``), opened by
  ``HAL_NVIC_EnableIRQ(USART1_IRQn)`` (the profiles' mask/unmask pairs, with an IRQn constant;
  another argument opens every line) and by the profiles' ``line_enables``
  (``SysTick_Config`` opens ``irq:SysTick``).
  A handler whose name gives no line but whose registration names one as its first argument
  (NuttX's ``irq_attach(STM32_IRQ_USART3, usart3_isr, NULL)``) is behind ``irq:`` that line
  when a call that switches interrupt sources on names it too (``up_enable_irq(
  STM32_IRQ_USART3)``, ``bodies.SOURCE_SWITCH``): that call opens it.
- ``run:F``: a context on another core (``multicore_launch_core1(F)``), or a callback handed
  over at a call (``uart_init(dev, baud, rx_cb, arg)``: ``Context.armed``): opened by the call
  that launches or keeps it, and by nothing else (a callback is behind its other gates too).
- ``fam:F``: the peripheral's own interrupt sources, for a handler that hands over to the HAL
  driver of family F (``HAL_I2C_EV_IRQHandler``: I2C) and for that family's callbacks
  (``HAL_I2C_MasterTxCpltCallback``). A HAL peripheral raises no interrupt until a transfer is
  started in interrupt or DMA mode (``HAL_I2C_Master_Transmit_IT``, ``HAL_UART_Receive_DMA``;
  a ``*_DMA`` start starts the DMA family too) or its interrupt bits are set by hand
  (``__HAL_UART_ENABLE_IT``): only those open it. A family the program never starts has no
  such gate (its source is started some other way).

A call opens what its callee opens, transitively; a call made in a loop opens from the loop's
entry. A function runs with gate g closed when every call site of it is in such a function
before that function's first call opening g (entry points named ``start_off``, bare-metal
``main``, begin with every gate closed). Order is the body walk's: a backward ``goto`` is not
followed.
"""

from __future__ import annotations

import fnmatch
import re
from collections import defaultdict
from dataclasses import replace
from typing import TYPE_CHECKING

from brickguard.callbacks import resolve
from brickguard.facts import CallFact, irq_key, paths_overlap

if TYPE_CHECKING:
    from brickguard.program import Access, Context, Program

ALL = "*"
RUN = "run:"  # a context on another core (``Context.concurrent``): opened by its launch alone
NEVER = 1 << 62
_HANDLER_OF = re.compile(r"HAL_([A-Za-z0-9]+?)(?:Ex)?_\w*IRQHandler")
_ENABLE_IT = re.compile(r"__HAL_([A-Za-z0-9]+?)(?:Ex)?_(?:\w+_)?ENABLE_IT")
_DISABLE_IT = re.compile(r"__HAL_([A-Za-z0-9]+?)(?:Ex)?_(?:\w+_)?DISABLE_IT")


def family(name: str) -> str:
    """``HAL_UARTEx_RxEventCallback`` -> "UART": a HAL function's peripheral family."""
    parts = name.split("_")
    if len(parts) < 3 or parts[0] != "HAL":
        return ""
    f = parts[1]
    return f[:-2] if f.endswith("Ex") else f


def start_families(name: str) -> set[str]:
    """The families a HAL call starts in interrupt or DMA mode: ``HAL_UART_Receive_DMA`` ->
    {UART, DMA}, ``HAL_TIM_Base_Start_IT`` -> {TIM}; ``__HAL_UART_ENABLE_IT`` -> {UART}."""
    m = _ENABLE_IT.fullmatch(name)
    if m:
        return {m.group(1)}
    parts = name.split("_")
    if len(parts) < 3 or parts[0] != "HAL" or not ({"IT", "DMA"} & set(parts[2:])):
        return set()
    out = {family(name)}
    if "DMA" in parts[2:]:
        out.add("DMA")
    return out


def is_enable_macro(name: str) -> bool:
    return bool(_ENABLE_IT.fullmatch(name))


def is_it_macro(name: str) -> bool:
    """``__HAL_I2C_ENABLE_IT`` or ``__HAL_I2C_DISABLE_IT``: a peripheral's own interrupt
    sources switched on or off by hand."""
    return bool(_ENABLE_IT.fullmatch(name) or _DISABLE_IT.fullmatch(name))


def stop_family(name: str) -> str:
    """``__HAL_I2C_DISABLE_IT`` -> "I2C"; "" for any other name."""
    m = _DISABLE_IT.fullmatch(name)
    return m.group(1) if m else ""


def gates_of(program: Program) -> dict[Context, frozenset[str]]:
    """Each interrupt context's gates (see above)."""
    opened = {g for c in program.calls for g in _direct(program, c)[0]}
    started = {g for g in opened if g.startswith("fam:")}
    by_caller = program.calls_by_caller
    plat = program.config.platform
    lines = program.registered_lines
    out = {}
    for usr, ctx in program.entries.items():
        if not ctx.is_interrupt:
            continue
        if ctx.concurrent:  # another core: from its launch on, whatever this core masks
            out[ctx] = frozenset({RUN + ctx.name})
            continue
        gates: set[str] = set()
        fams: set[str] = set()
        if ctx.how.startswith("HAL callback") or _HANDLER_OF.fullmatch(ctx.name):
            fams.add(family(ctx.name))  # a HAL driver's own handler or callback
        else:
            line = irq_key(ctx.name)
            if ctx.name.endswith("_IRQHandler") or line in plat.line_enables.values():
                # A line no call enables by name is opened only by what opens every line: one
                # gate for all of them (the timeline is computed once per distinct gate).
                gates.add(f"irq:{line}" if f"irq:{line}" in opened else "irq:?")
            elif usr in lines:
                gates.add(f"irq:{lines[usr]}")
            for c in by_caller.get(usr, ()):
                m = _HANDLER_OF.fullmatch(c.callee_name)
                if m:
                    fams.add(m.group(1))
        fams = {f for f in fams if f"fam:{f}" in started}
        if fams:
            gates.add("fam:" + "|".join(sorted(fams)))
        # A callback handed over at a call runs from that call on, and only once its
        # interrupt can fire too.
        armed = {RUN + ctx.name} if ctx.armed else set()
        out[ctx] = frozenset((gates or {ALL}) | armed)
    return out


def registered_lines(program: Program) -> dict[str, str]:
    """Handler USR -> the line its registration names (see above): a function passed to a call
    whose first argument is a macro, that a source switch-on names as its own first argument."""
    switched = {c.instance for c in program.calls if c.instance and not c.off}
    out: dict[str, str] = {}
    for pf in program.passed_functions:
        fn = resolve(program, pf.function)
        ctx = program.entries.get(fn) if fn is not None else None
        if ctx is None or not ctx.is_interrupt or ctx.concurrent or ctx.name.endswith(
                "_IRQHandler") or pf.arg == 0 or pf.instance not in switched:
            continue
        out.setdefault(fn, pf.instance)
    return out


def _switches_line(program: Program, c: CallFact) -> bool:
    """A call that switches on a line a handler's registration names."""
    return bool(c.instance) and not c.off and c.instance in program.registered_line_names


def _direct(program: Program, c: CallFact) -> tuple[set[str], bool]:
    """The gates one call opens by itself, and whether that is all it opens (a call the
    profiles name is judged by its name, not by its callee's body: ``HAL_NVIC_EnableIRQ(X)``
    opens line X although its body passes a variable on)."""
    plat = program.config.platform
    name = c.callee_name
    launched = program.launched.get((c.callee, c.where))
    if launched:
        return {ALL, *(RUN + n for n in launched)}, True
    if c.callee.startswith("macro:"):
        fams = start_families(name) if is_enable_macro(name) else set()
        return {f"fam:{f}" for f in fams}, True
    if name in program.nvic_enables:
        return ({f"irq:{c.irq}"} if c.irq else {ALL}), True
    if _switches_line(program, c):
        return {f"irq:{c.instance}"}, True
    fams = start_families(name)
    if fams:
        return {f"fam:{f}" for f in fams}, True
    if name in plat.line_enables:
        return {f"irq:{plat.line_enables[name]}"}, True
    if name in program.section_exits:
        return {ALL}, True
    if c.callee in program.functions:
        return set(), False  # its body says
    # Named in both lists (HAL_UART_Init: enable HAL_*_Init, quiet HAL_*): the more specific
    # pattern (more literal characters) says.
    if _specificity(name, plat.interrupt_enables) >= max(1, _specificity(name, plat.quiet)):
        return {ALL}, True
    return (set() if _match(name, plat.quiet) else {ALL}), True


def closed_until(program: Program) -> dict[str, dict[str, int]]:
    """Gate -> (function USR -> the walk number of its first call that may open the gate), for
    the functions that only ever run with the gate closed: an access there with a smaller
    number is made with the gate closed."""
    plat = program.config.platform
    if not plat.start_off:
        return {}
    by_caller = program.calls_by_caller
    sites: dict[str, list[CallFact]] = defaultdict(list)
    for c in program.calls:
        sites[c.callee].append(c)
    opened = _opens(program)

    gates = {g for gs in program.gates.values() for g in gs} | {ALL}
    roots = [usr for usr, f in program.functions.items()
             if f.name in plat.start_off and not sites.get(usr)
             and ((e := program.entries.get(usr)) is None or not e.is_interrupt)]
    # What opens every gate (unknown code, __enable_irq) leaves the lines the program's own
    # timeline enables by name closed until that call: the code enables them itself.
    anything = {g for g in gates - _own_lines(program, roots) if not g.startswith(RUN)}
    firsts: dict[str, dict[str, int]] = defaultdict(dict)  # function -> gate -> first opening
    for usr, calls in by_caller.items():
        for c in calls:
            got = opened(c)
            if not got:
                continue
            for g in ((anything | (got & gates)) if ALL in got else (got & gates) | {ALL}):
                if c.earliest < firsts[usr].get(g, NEVER):
                    firsts[usr][g] = c.earliest
    out = {}
    for g in gates:
        def first(usr: str, g: str = g) -> int:
            return firsts.get(usr, {}).get(g, NEVER)

        early = {usr: first(usr) for usr in roots}
        changed = True
        while changed:
            changed = False
            for usr in program.functions:
                if usr in early or usr in program.entries or not sites.get(usr):
                    continue
                if all(c.caller in early and (c.seq < early[c.caller] or (
                        c.seq == early[c.caller] == c.earliest)) for c in sites[usr]):
                    early[usr] = first(usr)
                    changed = True
        out[g] = early
    return out


def handed_back(program: Program, accesses: list[Access]) -> list[Access]:
    """The gate that closes again: a HAL peripheral's handler ends a transfer by disabling the
    family's interrupt sources (``__HAL_I2C_DISABLE_IT``) and handing the handle back (it
    writes the state field the driver tests, ``hi2c->State = HAL_I2C_STATE_READY``). A task
    function that tests that field (``if (hi2c->State == HAL_I2C_STATE_READY)``) and then,
    in the arm, sets the handle up and starts the family's interrupts itself
    (``__HAL_I2C_ENABLE_IT``, a ``*_IT`` start) makes the set-up accesses, before that start,
    with the family's gate closed: the handle said the last transfer is over, and its handler
    switched the sources off when it said so. This trusts the driver's handle protocol; a
    family whose handlers never disable their sources (free-running reception) stays open."""
    ctx_of = program.contexts
    stops = {f for c in program.calls if c.callee.startswith("macro:")
             and (f := stop_family(c.callee_name))
             and any(x.is_interrupt for x in ctx_of.get(c.caller, ()))}
    closable = {g for gs in program.gates.values() for g in gs
                if g.startswith("fam:") and set(g[4:].split("|")) <= stops}
    if not closable:
        return accesses
    opens = _opens(program)
    starts: dict[tuple[str, str], int] = {}  # (task function, gate) -> seq of its own start
    for usr, calls in program.calls_by_caller.items():
        for g in closable:
            fams = {f"fam:{f}" for f in g[4:].split("|")}
            first = min((c for c in calls if ALL in (o := opens(c)) or o & fams),
                        key=lambda c: c.earliest, default=None)
            if first is not None and _direct(program, first)[0] & fams \
                    and first.earliest == first.seq:
                starts[(usr, g)] = first.seq
    if not starts:
        return accesses
    tests: dict[tuple[str, str, int], list[tuple[str, ...]]] = defaultdict(list)
    handed: dict[str, list[tuple[tuple[str, ...], frozenset[str]]]] = defaultdict(list)
    for a in accesses:
        f = a.fact
        if f.tests and a.in_task:
            tests[(f.obj, f.function, f.tests)].append(f.path)
        if f.kind.writes and a.in_interrupt:
            behind = frozenset(g for c in a.contexts if c.is_interrupt
                               for g in program.gates.get(c, ()))
            handed[f.obj].append((f.path, behind))
    out = []
    for a in accesses:
        f = a.fact
        extra = set()
        if a.in_task and f.branch:
            for g in closable:
                at = starts.get((f.function, g))
                if at is None or f.seq >= at:
                    continue
                tested = [p for off, _ in f.branch for p in tests.get((f.obj, f.function, off), ())]
                if any(paths_overlap(p, w) and g in behind
                       for p in tested for w, behind in handed.get(f.obj, ())):
                    extra.add(g)
        out.append(replace(a, closed=a.closed | extra) if extra else a)
    return out


def shut_behind(program: Program, accesses: list[Access]) -> list[Access]:
    """A handler that disables every interrupt source its family ever enables
    (``__HAL_I2C_DISABLE_IT(h, I2C_IT_EVT | I2C_IT_BUF | I2C_IT_ERR)`` where the driver enables
    no other) closes the family's gate behind itself: after the disable, on every path (it is
    in no if arm the access is not in) and before any re-enable, no interrupt of that family
    can come, so a more urgent handler of the family (the I2C error interrupt) cannot preempt
    what follows. A disable naming fewer sources (``I2C_IT_BUF`` alone) closes nothing."""
    enabled: dict[str, set[str]] = defaultdict(set)
    for c in program.calls:
        if c.callee.startswith("macro:") and is_enable_macro(c.callee_name):
            for f in start_families(c.callee_name):
                enabled[f] |= set(c.sources)
    ctx_of = program.contexts
    shuts: dict[str, list[tuple[CallFact, str]]] = defaultdict(list)  # function -> disables
    for c in program.calls:
        f = stop_family(c.callee_name) if c.callee.startswith("macro:") else ""
        if f and enabled.get(f) and enabled[f] <= set(c.sources) and any(
                x.is_interrupt for x in ctx_of.get(c.caller, ())):
            shuts[c.caller].append((c, f))
    if not shuts:
        return accesses
    by_caller = program.calls_by_caller
    out = []
    for a in accesses:
        f = a.fact
        shut = set()
        for c, fam in shuts.get(f.function, ()):
            if c.seq < f.seq and all(b in f.branch for b in c.branch) and not any(
                    c.seq < e.seq < f.seq and e.callee.startswith("macro:")
                    and fam in start_families(e.callee_name)
                    for e in by_caller.get(f.function, ())):
                shut.add(f"fam:{fam}")
        out.append(replace(a, shut=frozenset(shut)) if shut else a)
    return out


def _opens(program: Program):
    """call -> the gates it may open, transitively through the program's own functions."""
    sites: dict[str, list[CallFact]] = defaultdict(list)
    for c in program.calls:
        sites[c.callee].append(c)
    direct = {id(c): _direct(program, c) for c in program.calls}
    opens: dict[str, set[str]] = defaultdict(set)
    todo = []
    for c in program.calls:
        if direct[id(c)][0]:
            opens[c.caller] |= direct[id(c)][0]
            todo.append(c.caller)
    while todo:
        f = todo.pop()
        for c in sites.get(f, ()):
            if not direct[id(c)][1] and not opens[f] <= opens[c.caller]:
                opens[c.caller] |= opens[f]
                todo.append(c.caller)

    def opened(c: CallFact) -> set[str]:
        gates, final = direct[id(c)]
        return gates if final else opens.get(c.callee, set())

    return opened


def _own_lines(program: Program, roots: list[str]) -> set[str]:
    """The ``irq:X`` lines a function reached from a start root enables by name
    (``NVIC_EnableIRQ(USART1_IRQn)`` in ``uart_init`` called by ``main``)."""
    by_caller = program.calls_by_caller
    seen, todo = set(roots), list(roots)
    out: set[str] = set()
    while todo:
        f = todo.pop()
        for c in by_caller.get(f, ()):
            if (c.callee_name in program.nvic_enables and c.irq) or _switches_line(program, c):
                out |= {g for g in _direct(program, c)[0] if g.startswith("irq:")}
            if c.callee in program.functions and c.callee not in seen:
                seen.add(c.callee)
                todo.append(c.callee)
    return out


def _specificity(name: str, patterns: list[str]) -> int:
    """The literal characters of the most specific pattern matching ``name``; 0 if none."""
    return max((len(p.replace("*", "").replace("?", "")) for p in patterns
                if fnmatch.fnmatchcase(name, p)), default=0)


def _match(name: str, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)
