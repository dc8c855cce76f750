"""Interrupt handlers reached through a pointer: functions handed to a driver that calls them
from its interrupt handler, found by what the call says rather than by a table per SDK.

Vendor SDKs take the application's handler at set-up and call it from the driver's own IRQ
handler: ``nrfx_uarte_init(&inst, &cfg, on_uart)`` (nrfx), ``LPUART_TransferCreateHandle(LPUART1,
&h, on_done, NULL)`` (NXP MCUXpresso), ``USART1_ReadCallbackRegister(on_rx, 0)`` (Harmony 3),
``uart_irq_callback_set(dev, on_irq)`` (Zephyr), ``GPIO_registerInterrupt(port, on_pin)`` (TI).
The profiles list the known ones (``registrations``); a call none lists is read by its words:

- the function is passed to a call whose own name, or the name or declared type of the
  parameter it is passed as, says *isr*, *irq* or *interrupt*; or says *handler*, *callback* or
  *cb* and the call's name says it sets something up (init, register, create, set, attach,
  connect, install, enable, start, open) or the call or parameter says *timer* or *alarm*
  (``add_repeating_timer_ms(ms, cb, ...)``: a hardware timer's callback) —
  ``lv_obj_add_event_cb`` adds a UI event, not that;
- the call is not one the program defines (the driver's source is not there; a function the
  program defines is judged by its body: a callback it stores in a field is reached from the
  interrupt handler that calls through that field, which ``stored_callbacks`` follows), nor a task
  creator, nor one the profiles' ``task_callbacks`` name as calling back in a thread (an event
  loop such as ``esp_event_handler_register``, a work queue), nor a listed registration that
  took its function from this call (a call that matches a registration's name but holds no
  function where it says, emlib's ``GPIOINT_CallbackRegister(intNo, cb)`` against Harmony's
  ``*_CallbackRegister(cb, ctx)``, is judged by its words);
- the function itself is never called directly: one the task code calls too is not only
  an interrupt handler, and its direct calls are judged as task code.

A function stored in a field of a struct variable (its initializer ``{.p_callback = uart_cb}``
or an assignment ``cfg.p_callback = uart_cb``) that is passed to such a call (``R_SCI_UART_Open(
&ctrl, &cfg)``, Renesas FSP) is read the same way, the field's name and type standing for the
parameter's. The risk of reading words: a set-up call whose callback runs in the caller's loop
(a UI toolkit's ``lv_disp_drv_register`` with ``flush_cb``) is taken for an interrupt's; the
profiles' ``task_callbacks`` name those.

A call whose words say nothing at all (ChibiOS ``chVTSet(&vt, delay, on_tick, p)``, NuttX
``wd_start(&wd, ticks, on_tick, 0)``) is read by what it does with the function: it keeps it to
call later, and in an embedded SDK later is the driver's interrupt, at a priority not known
(``unnamed_entries``: not a thread start or a deferral the profiles name, not a function that
blocks, not one only an interrupt handler hands over).

Its interrupt line is inferred where the call names it: the peripheral the call's name starts
with (``USART1_ReadCallbackRegister``) or its first argument names (``LPUART1``), when the code
gives that line a priority (``NVIC_SetPriority(LPUART1_IRQn, 2)``): the handler runs at it.
"""

from __future__ import annotations

import fnmatch
import re
from typing import TYPE_CHECKING

from brickguard.facts import PARAM, TICK, PassedFunction, irq_key
from brickguard.profiles import name_matches

if TYPE_CHECKING:
    from brickguard.program import Context, Program

STRONG = re.compile(r"isr|irq|interrupt", re.IGNORECASE)
WEAK = re.compile(r"handler|callback|(?:^|_)cb(?:_|$)|[a-z]Cb\b|Cb_", re.IGNORECASE)
SETUP = re.compile(r"init|register|create|set|attach|connect|install|enable|start|open",
                   re.IGNORECASE)
# A hardware timer's or alarm's callback (pico-sdk's add_repeating_timer_ms(ms, cb, ...), Zephyr's
# k_timer_init): run from the timer's interrupt; an RTOS's software timers (FreeRTOS xTimer*,
# run in the timer task) are named in the profiles' task_callbacks.
TIMED = re.compile(r"timer|alarm", re.IGNORECASE)


def launches_core(program: Program, callee: str) -> bool:
    """Whether a call the program does not define, by its name, starts another core (the
    profiles' ``[cores] launches``: pico-sdk's multicore_launch_core1(entry)): that function is
    a context of its own, running in parallel with the caller from the call on
    (``Context.concurrent``)."""
    return (name_matches(program.config.platform.core_launches, callee)
            and not STRONG.search(callee))


def says_interrupt(hint: str) -> bool:
    """Whether a call's words (``PassedFunction.hint``) say it takes an interrupt handler."""
    callee, *rest = hint.split(" ", 1) + [""]
    param = rest[0]
    if STRONG.search(hint):
        return True
    return bool(WEAK.search(param) or WEAK.search(callee)) and bool(
        SETUP.search(callee) or TIMED.search(callee) or TIMED.search(param))


def inferred_entries(program: Program, context_cls) -> dict[str, Context]:
    """Function USR -> the interrupt context of each function handed to a driver by pointer
    (see above) that is not an entry point already."""
    plat = program.config.platform
    creators = [r.function for r in program.config.task_creators]
    not_isr = [*creators, *plat.task_callbacks]
    called = {c.callee for c in program.calls}
    # A call a listed registration took its function from: its other function arguments are
    # that SDK's business (request_threaded_irq's thread_fn runs in a thread).
    taken = {(pf.callee, pf.where) for pf in program.passed_functions if pf.registered}
    dispatch = _dispatchers(program)
    out: dict[str, Context] = {}
    for pf in program.passed_functions:
        fn = resolve(program, pf.function)
        if fn is None or fn in program.entries or fn in out or fn in called:
            continue
        callee = pf.hint.split(" ", 1)[0]
        if (pf.through or pf.callee) in program.functions or not callee or (
                pf.callee, pf.where) in taken:
            continue
        if any(fnmatch.fnmatchcase(callee, p) for p in not_isr):
            continue
        if launches_core(program, callee) and pf.arg == 0 and not pf.holder:
            where = f" (line {pf.where.line})" if pf.where is not None else ""
            out[fn] = context_cls(
                program.functions[fn].name, "interrupt",
                f"launched by {callee}{where}: it runs on another core, in parallel with the "
                "caller, and this core's interrupt masks do not hold it off", concurrent=True)
            continue
        if not says_interrupt(pf.hint):
            handler = _dispatched_by(program, pf, callee, dispatch)
            if handler is not None:
                out[fn] = _dispatched(program, context_cls, pf, program.functions[fn].name,
                                      callee, handler)
            continue
        out[fn] = _context(program, context_cls, pf, program.functions[fn].name, callee)
    return out


def _module_words(name: str) -> list[str]:
    """``MXC_UART_TransactionAsync`` -> ["MXC", "UART"]: a driver function's module, its
    name's words less the last; [] for a name of fewer than three words (``uart_send``)."""
    parts = name.split("_")
    return parts[:-1] if len(parts) >= 3 and all(parts[:-1]) else []


def _dispatchers(program: Program) -> list[tuple[list[str], Context]]:
    """(module words, interrupt entry) for each handler that (directly or in a function it
    calls) hands the interrupt to a driver's own handler, a function with no body here whose
    last word says so (``UART0_IRQHandler`` calling ``MXC_UART_AsyncHandler(MXC_UART0)``,
    ``acme_uart_irq_handler(0)``): the driver's interrupt dispatch, which calls the callbacks
    its requests hold."""
    callees: dict[str, list] = {}
    for c in program.calls:
        callees.setdefault(c.caller, []).append(c)
    out: list[tuple[list[str], Context]] = []
    for usr, ctx in program.entries.items():
        if not ctx.is_interrupt or ctx.concurrent:
            continue
        todo, seen = [usr], {usr}
        while todo:
            for c in callees.get(todo.pop(), ()):
                if c.callee in program.functions:
                    if c.callee not in seen:
                        seen.add(c.callee)
                        todo.append(c.callee)
                    continue
                words = _module_words(c.callee_name)
                last = c.callee_name.rsplit("_", 1)[-1]
                if words and (STRONG.search(last) or re.search(r"handler", last, re.I)):
                    out.append((words, ctx))
    return out


def _dispatched_by(program: Program, pf: PassedFunction, callee: str,
                   dispatch: list[tuple[list[str], Context]]) -> Context | None:
    """The interrupt context that runs a callback handed to a driver call whose words say it
    is a callback (``MXC_UART_TransactionAsync(&req)`` with ``req.callback = rx_done``) but
    not that it sets up an interrupt's: the one entry whose handler dispatches to that call's
    module (``_dispatchers``: the two names share their first two words or more, short of
    the last); None when no handler does, or several different ones do."""
    if not WEAK.search(pf.hint):
        return None
    mine = _module_words(callee)
    found = set()
    for words, ctx in dispatch:
        n = 0
        while n < min(len(words), len(mine)) and words[n] == mine[n]:
            n += 1
        if n >= 2:
            found.add(ctx)
    return found.pop() if len(found) == 1 else None


def _dispatched(program: Program, context_cls, pf: PassedFunction, name: str, callee: str,
                handler: Context) -> Context:
    where = f" (line {pf.where.line})" if pf.where is not None else ""
    held = f"stored in field {pf.hint.split(' ')[1]} of {pf.holder}, " if pf.holder else ""
    how = (f"{held}passed to {callee}{where}: {handler.name} hands the interrupt to that "
           "driver's handler, which calls it")
    return context_cls(name, "interrupt", how, irq=handler.irq or irq_key(handler.name))


def unnamed_entries(program: Program, context_cls) -> dict[str, Context]:
    """Function USR -> an interrupt context for each function handed, by task code, to a call
    the program does not define whose words say nothing (``chVTSet(&vt, delay, on_tick, p)``,
    NuttX's ``wd_start(&wd, ticks, on_tick, 0)``: a driver or kernel service whose source is
    not in the program). Such a call keeps the pointer to call it later, and in an embedded
    SDK later is its interrupt handler (a timer's, a pin's, a UART's): the callback is taken to
    run there, at a priority not known. Needs the contexts reached so far. Not taken:

    - a call whose words say anything of a handler or callback: ``says_interrupt`` judged it
      (``ui_obj_add_event_cb(obj, on_click, ...)`` adds a UI event, run in the UI's loop);
    - a call the profiles name as starting a thread or deferring to one (``task_creators``,
      ``[tasks] callbacks``, and ``[tasks] deferrals`` in any case: ``*thread*``, ``*sched*``,
      an event queue, a work queue), or as never letting an interrupt fire (``quiet``: the C
      library);
    - a function the program calls directly, or whose body blocks (the profiles' ``blocks``:
      a thread's body waits, an interrupt handler does not) or loops for ever (``for (;;)``
      among its own statements: a thread runs until deleted, a callback returns);
    - one handed over only from interrupt context: a handler that passes a function on defers
      work to a thread (nRF5's ``app_sched_event_put``), or re-arms its own timer, which the
      task code's call already made a callback."""
    plat = program.config.platform
    skip = [*(r.function for r in program.config.task_creators), *plat.task_callbacks,
            *plat.quiet]
    called = {c.callee for c in program.calls}
    blocks = {n for n, why in plat.blocking.items() if why == "blocks"}
    taken = {(pf.callee, pf.where) for pf in program.passed_functions if pf.registered}
    out: dict[str, Context] = {}
    for pf in program.passed_functions:
        fn = resolve(program, pf.function)
        if fn is None or fn in program.entries or fn in out or fn in called or pf.holder:
            continue
        callee = pf.hint.split(" ", 1)[0]
        if pf.callee in program.functions or not callee or (pf.callee, pf.where) in taken:
            continue
        if STRONG.search(pf.hint) or WEAK.search(pf.hint):
            continue  # its words spoke, and ``says_interrupt`` judged them (a UI event's cb)
        if name_matches(skip, callee) or name_matches(plat.task_deferrals, callee):
            continue
        if program.functions[fn].forever or any(
                c.callee_name in blocks for c in program.calls_by_caller.get(fn, ())):
            continue  # a thread's body: it loops for ever, or waits
        site = program.calls_by_caller_site.get((pf.callee, pf.where), ())
        if not any(not x.is_interrupt for c in site if c.caller != fn
                   for x in program.contexts.get(c.caller, ())):
            continue  # handed over by a handler, or by itself (a re-arm): see above
        where = f" (line {pf.where.line})" if pf.where is not None else ""
        how = (f"run by {callee}{where} from the driver's interrupt: {callee} has no body here "
               "and keeps the function to call it later; its priority is not known, so it "
               "preempts every task and is not ordered against the other handlers")
        out[fn] = context_cls(program.functions[fn].name, "interrupt", how,
                              irq=_irq(program, pf, callee) or _tick(pf), armed=True)
    return out


def _tick(pf: PassedFunction) -> str:
    """A kernel's timer callback, kept by a call whose words say timer or alarm and name no
    line (RT-Thread's ``rt_timer_create``, a hard timer): run from the tick interrupt,
    SysTick, at its priority (``Program.priority``: the least urgent unless the code sets
    one)."""
    return TICK if TIMED.search(pf.hint.split(" ", 1)[0]) else ""


def stored_callbacks(program: Program, context_cls) -> dict[str, Context]:
    """Functions stored in a struct field that an interrupt handler calls through: stored
    directly (``hdma->XferCpltCallback = UART_DMAReceiveCplt``) or handed to a function the
    program defines that stores its parameter there (``set_cb(&h, on_done)`` with
    ``h->cb = cb``; ``h->cb(h)`` in the handler). Needs the contexts reached so far."""
    isr_fields = {ic.field for ic in program.indirect_calls if ic.field and any(
        c.is_interrupt for c in program.contexts.get(ic.function, ()))}
    by_param: dict[tuple[str, int], str] = {}
    direct: dict[str, str] = {}
    for s in program.stored_functions:
        if s.field not in isr_fields or s.other:
            continue
        if s.param >= 0:
            by_param[(s.function, s.param)] = s.field
        else:
            direct.setdefault(s.function, s.field)
    called = {c.callee for c in program.calls}
    out: dict[str, Context] = {}

    def add(fn: str | None, how: str, irq: str = "") -> None:
        if fn is not None and fn not in program.entries and fn not in out and fn not in called:
            out[fn] = context_cls(program.functions[fn].name, "interrupt", how, irq=irq)

    for usr, field in direct.items():
        add(resolve(program, usr),
            f"stored in field {field}, which an interrupt handler calls through")
    for pf in program.passed_functions:
        field = by_param.get((pf.callee, pf.arg))
        if field is not None:
            callee = pf.hint.split(" ", 1)[0]
            add(resolve(program, pf.function),
                f"passed to {callee}, which stores it in field {field}; an interrupt "
                "handler calls through it", _irq(program, pf, callee))
    return out


def _context(program: Program, context_cls, pf: PassedFunction, name: str,
             callee: str) -> Context:
    where = f" (line {pf.where.line})" if pf.where is not None else ""
    if pf.holder:
        field = pf.hint.split(" ")[1]
        how = (f"stored in field {field} of {pf.holder}, passed to {callee}{where}: the driver "
               "calls it from its interrupt handler")
    else:
        how = (f"passed to {callee}{where} as its {_param(pf.hint)}: the driver calls it "
               "from its interrupt handler")
    site = next((c for c in program.calls_by_caller_site.get((pf.callee, pf.where), ())), None)
    t = site.targets[0] if site is not None and site.targets and pf.arg > 0 else None
    instance = t[0] if t is not None and t[0] in program.objects else ""
    timer = name_matches(program.config.platform.task_timers, callee)
    if timer:
        how = (f"passed to {callee}{where}: the RTOS's software-timer task runs it, which "
               "preempts the tasks as an interrupt would; a scheduler lock holds it off")
    # Armed by the call that keeps it (``timeline``'s ``run:`` gate); a call through a field
    # (``Driver_USART3.Initialize(cb)``) is no call site the timeline walks: not gated so.
    return context_cls(name, "interrupt", how, irq="" if timer else _irq(program, pf, callee),
                       instance=instance, armed=site is not None, timer_task=timer)


def _param(hint: str) -> str:
    parts = hint.split(" ")
    return " ".join(p for p in parts[1:] if p) or "callback argument"


def _irq(program: Program, pf: PassedFunction, callee: str) -> str:
    """The interrupt line the call names, when the code names that line elsewhere (gives it a
    priority, masks or enables it): the peripheral or component the call's name starts with
    (USART1_ReadCallbackRegister; PSoC's isr_Rx_StartEx, with isr_Rx_SetPriority), its
    first argument (LPUART1), or the one IRQn enumerator the call or the struct holding the
    function names beside it (``PassedFunction.line``)."""
    known = program.known_irqs
    words = callee.split("_")
    heads = ["_".join(words[:n]) for n in range(1, len(words))]
    line = irq_key(pf.line) if pf.line and not pf.line.startswith(PARAM) else ""
    for cand in (*heads, pf.instance, re.sub(r"_BASE$", "", pf.instance), line):
        if cand and cand in known:
            return cand
    return ""


def resolve(program: Program, usr: str) -> str | None:
    """The definition of a function known here by a declaration's USR, when there is one."""
    if usr in program.functions:
        return usr
    same = program.functions_by_name.get(usr.rsplit("@", 1)[-1], [])
    return same[0] if len(same) == 1 else None
