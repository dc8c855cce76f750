"""Order violations on the interrupt timeline: state written after the point where the handler
that uses it can already run (BG101, pattern ``late``).

A task function that starts a handler (opens one of the handler's own gates, ``timeline``: its
NVIC line ``NVIC_EnableIRQ(USART1_IRQn)``, its HAL family's start, the launch of a context on
another core ``multicore_launch_core1(fn)``) and only then writes an object that handler reads
hands the handler the old value: an interrupt already pending (a byte received during boot) runs
at once, a second core starts at once. The finding is anchored at the late write, with the start
and the handler's read in its code flow. Reported only where the handler cannot have run before
the start in that function (the gate is closed there: ``timeline.closed_until``) and:

- the handler reads the object without testing it first (``if (g_cmd != NULL)`` makes the old
  value harmless), in no arm of its own test of another flag the task writes after the late
  write (a flag that publishes the object);
- the write is in no loop of its function (made again on every turn, it is an update of
  state the handler shares, BG101-BG103's question, not a set-up), unless each turn waits for
  the handler's hand-back and then switches its sources on before the write (a new transfer
  per turn: ``while (busy) {} ...; serial_irq_set(&s, TxIrq, 1); len = n;``);
- the function writes no part of the object before the start (then the handler reads that
  value, and the late write is an update), and a function that runs once from reset (``main``)
  writes an object with no initializer (the handler reads zero: a NULL pointer, a zero
  length or divisor), not one whose initializer is a value meant to be used.

A gate that any call may open (``*``: some interrupt, opened by the first call brickguard cannot
see; ``irq:?``, a line no call enables by name) is no start: only the calls that start this
handler by name count.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from brickguard.facts import AccessKind, CallFact, irq_key, paths_overlap

if TYPE_CHECKING:
    from brickguard.program import Access, Program
    from brickguard.races import Race


def late_writes(program: Program, obj, accs: list[Access], race_cls, victim) -> list[Race]:
    """The late writes of one shared object (see above), one race per write site."""
    out = _lost_handshakes(program, obj, accs, race_cls, victim)
    reads = [i for i in accs if i.in_interrupt and i.fact.kind is AccessKind.read]
    if not reads:
        return out
    # A handler that tests the object against a constant (``if (g_cmd != NULL)``, ``if (n ==
    # 0)``) copes with the old value; a comparison with another value (``if (pos < len)``) is
    # a use.
    pointer = obj.type.rstrip().endswith("*")  # a test of a pointer: a NULL check
    tested = {i.fact.function for i in accs if i.in_interrupt and i.fact.tests
              and ((i.fact.sense and "bound" not in i.fact.sense[2:]) or pointer)}
    early = program.closed_until
    done = {r.task.fact.where for r in out}
    for w in accs:
        f = w.fact
        if not (w.in_task and f.kind.writes) or w.task_protected or w.before_start or (
                f.where in done):
            continue
        for i in reads:
            if i.fact.function in tested or not paths_overlap(f.path, i.fact.path):
                continue
            if not _fires(program, i, w):
                continue  # another of its gates is still closed there (a HAL family not started)
            # A write in a loop is made again each turn: an update, not a set-up; unless each
            # turn hands the handler a new transfer (``_source_start``, in that turn).
            start = (None if f.looped else _start(program, early, w, i)) or _source_start(
                program, w, i)
            if start is None or _written_before(accs, w, start):
                continue
            if obj.initialized and from_reset(program, f.function):
                continue
            if _published(program, w, i):
                continue
            out.append(race_cls("BG101", obj, w, i, pattern="late", victim=victim(w),
                                start=start))
            break
    return out


def _start(program: Program, early: dict, w: Access, i: Access) -> CallFact | None:
    """The call in the write's function, before it, that opens a gate of the handler's own
    (not ``*``) closed until then, when there is one."""
    f = w.fact
    for c in (x for x in i.contexts if x.is_interrupt):
        for g in program.gates.get(c, ()):
            if g in ("*", "irq:?"):  # opened by any call not seen: no start by name
                continue
            first = early.get(g, {}).get(f.function)
            if first is None or f.seq < first:
                continue
            call = next((k for k in program.calls_by_caller.get(f.function, ())
                         if k.earliest == first), None)
            if call is not None and call.seq < f.seq:
                return call
    return None


def _source_start(program: Program, w: Access, i: Access) -> CallFact | None:
    """The call before the write that switches the handler's peripheral sources on
    (``USART_IntEnable(USART0, USART_IF_TXBL)`` for ``USART0_TX_IRQHandler``), in a function
    that first reads an object the handler writes (the hand-back it waits for), where the
    handler switches those sources off itself (``USART_IntDisable(USART0, ...)``): until the
    task's own switch-on, the handler that handed back cannot run."""
    f = w.fact
    usr_of = program.entry_functions
    handed = {a.fact.obj for a in program.accesses_by_function.get(i.fact.function, ())
              if a.fact.kind.writes}
    mine = program.accesses_by_function.get(f.function, ())
    for c in i.contexts:
        if not c.is_interrupt or c.concurrent or c not in usr_of:
            continue
        offs = {k.instance for fn in {usr_of[c], i.fact.function}
                for k in program.calls_by_caller.get(fn, ()) if k.off and _switches(k, c)}
        for k in program.calls_by_caller.get(f.function, ()):
            if f.looped and k.earliest == k.seq:
                continue  # a write made each turn: only a switch-on made each turn starts it
            first = k.earliest if f.looped else 0  # the hand-back waited for in that turn
            if k.instance in offs and not k.off and (
                    k.seq < f.seq) and any(a.fact.kind.reads and first <= a.fact.seq < k.seq
                                           and a.fact.obj in handed for a in mine):
                return k
    return None


def _switches(k: CallFact, c) -> bool:
    """Whether source switch ``k`` switches the sources of handler context ``c``: those of its
    line (``USART_IntDisable(USART0, ...)`` for ``USART0_TX_IRQHandler``), or of the driver
    instance a callback was handed with (``serial_irq_set(&s_uart, ...)`` for the handler
    given to ``serial_irq_handler(&s_uart, ...)``)."""
    line = c.irq or irq_key(c.name)
    return bool(k.instance) and (line == k.instance or line.startswith(k.instance + "_")
                                 or _drives(k, c.instance))


def _fires(program: Program, i: Access, w: Access) -> bool:
    """Whether some context of handler access ``i`` has every gate open at ``w``."""
    shut = w.closed | w.shut
    return any(c.is_interrupt and not (program.gates.get(c, frozenset({"*"})) & shut)
               for c in i.contexts)


def _written_before(accs: list[Access], w: Access, start: CallFact) -> bool:
    f = w.fact
    return any(a.in_task and a.fact.kind.writes and a.fact.function == f.function
               and a.fact.seq < start.seq and paths_overlap(a.fact.path, f.path) for a in accs)


def from_reset(program: Program, fn: str) -> bool:
    """A function that runs once from reset: a start root (bare-metal ``main``)."""
    f = program.functions.get(fn)
    return f is not None and f.name in program.config.platform.start_off


def _published(program: Program, w: Access, i: Access) -> bool:
    """The handler's read sits in an arm of its test of another object the task writes after
    the late write (``g_len = n; g_ready = 1;`` against ``if (g_ready) use(g_len)``)."""
    arms = {off for off, _ in i.fact.branch}
    flags = {t.fact.obj for t in program.accesses_by_function.get(i.fact.function, ())
             if t.fact.tests in arms and t.fact.obj != w.fact.obj}
    return any(a.fact.obj in flags and a.fact.kind.writes and a.fact.seq > w.fact.seq
               for a in program.accesses_by_function.get(w.fact.function, ()))


def _drives(c: CallFact, instance: str) -> bool:
    """Whether a call works on the driver instance (its first argument points to it)."""
    return bool(instance) and bool(c.targets) and c.targets[0] is not None and (
        c.targets[0][0] == instance)


def _instances(i: Access) -> set[str]:
    return {c.instance for c in i.contexts if c.is_interrupt and c.instance}


def _lost_handshakes(program: Program, obj, accs: list[Access], race_cls, victim) -> list[Race]:
    """A flag a driver callback stores a constant in (``g_tx_busy = false`` on TX complete),
    written by the task with another constant just after a call that starts an operation on
    the callback's driver instance (``R_SCI_UART_Write(&g_uart0_ctrl, ...); g_tx_busy =
    true;``): the operation can end, and the callback store its value, before the task's
    store, which then overwrites it (the wait for the flag never ends)."""
    writes = [i for i in accs if i.in_interrupt and i.fact.kind is AccessKind.write
              and i.fact.stored is not None and _instances(i)]
    out = []
    for w in accs:
        f = w.fact
        if not (w.in_task and f.kind is AccessKind.write) or f.stored is None or (
                w.task_protected or w.before_start):
            continue
        for i in writes:
            if i.fact.stored == f.stored or not paths_overlap(f.path, i.fact.path):
                continue
            calls = program.calls_by_caller.get(f.function, ())
            start = max((c for c in calls if c.seq < f.seq and any(
                _drives(c, n) for n in _instances(i))), key=lambda c: c.seq, default=None)
            if start is None or any(start.seq < a.fact.seq < f.seq and a.fact.obj == f.obj
                                    for a in program.accesses_by_function.get(f.function, ())):
                continue
            out.append(race_cls("BG101", obj, w, i, pattern="late", victim=victim(w),
                                start=start))
            break
    return out


def no_new_start(program: Program, first: Access, second: Access, near: list[Access]) -> bool:
    """A poll of a flag the handlers of ``near`` store (``while (g_tx_busy) {}``), then a task
    write of it with nothing between that starts them again: the poll saw the handler's store
    for the last operation, and the handler runs again only once started again, so no handler
    store comes between (an R-W-W that is the serial order). A start is a call on a driver
    callback's instance (``R_SCI_UART_Write(&ctrl, ...)``), or the switch-on of the sources
    a handler switched off before its store (``USART_IntEnable(USART0, ...)``). True only when
    every such handler is one of these."""
    if not first.fact.in_loop_cond or not near:
        return False
    names: set[str] = set()
    sources: set[str] = set()
    for i in near:
        got = _instances(i)
        if i.fact.kind is not AccessKind.write or i.fact.stored is None:
            return False
        if got:
            names |= got
            continue
        off = _switched_off(program, i)
        if not off:
            return False
        sources |= off
    return not any(first.fact.seq < c.seq < second.fact.seq and (
        any(_drives(c, n) for n in names)
        or (c.instance in sources and not c.off))
        for c in program.calls_by_caller.get(first.fact.function, ()))


def _switched_off(program: Program, i: Access) -> set[str]:
    """The peripheral instances whose sources the handler switches off before its write
    ``i`` (``USART_IntDisable(USART0, ...); owner = APP;``): once the task has seen that
    write, the handler stays off until the task switches them on again."""
    out = set()
    for c in i.contexts:
        if not c.is_interrupt or c.concurrent:
            continue
        out |= {k.instance for k in program.calls_by_caller.get(i.fact.function, ())
                if k.off and k.seq < i.fact.seq and _switches(k, c)}
    return out
