"""A buffer the code uses while a DMA transfer it started may still be using it (BG107).

A DMA receive start (``HAL_UART_Receive_DMA(&h, rx, n)``, ``nrfx_uarte_rx``,
``DMAC_ChannelTransfer``: the profiles' ``[dma] rx`` tables) hands the buffer to the DMA
engine, which writes it until the transfer completes, with no instruction of the CPU: a read of
it before then sees old bytes or a half-written message. A transmit start reads it the same way:
a write before completion changes what is sent. Completion is signalled by the driver's
completion interrupt (a callback, a flag its handler sets) or waited for by a blocking call.

What is checked, in each function that starts a transfer of a global buffer: the accesses to
that buffer after the start, in program order (``AccessFact.seq``) — a read for a receive, a
write for a transmit, and for a receive a call handing the buffer on (``process(rx)``) —
when nothing between the start and the access can be the completion:

- no read of an object an interrupt handler writes (the completion flag, polled or tested:
  ``while (!rx_done) {}``, ``if (rx_done)``),
- no blocking call or wait (the profiles' ``blocks`` and ``waits``: ``xSemaphoreTake``,
  ``HAL_DMA_PollForTransfer``), no call that stops the transfer or asks for its state
  (``*Abort*``, ``*Stop*``, ``HAL_SPI_GetState`` polled in a loop).

A transmit buffer handed to a call is not judged (``Buffercmp(tx, rx, n)`` only reads it).

Accesses in other functions (the completion callback itself, a later main-loop pass) are not
judged: whether they run after completion is not known here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from brickguard.dma import Direction, DmaStart
from brickguard.facts import ArgFact, CallFact, paths_overlap

if TYPE_CHECKING:
    from brickguard.program import Access, Program

# Calls that stop the transfer, wait for it, or ask whether it is done (HAL_DMA_Abort,
# HAL_UART_DMAStop, HAL_DMA_PollForTransfer, HAL_SPI_GetState, nrfx_uarte_rx_ready).
_STOPS = re.compile(r"Abort|Stop|PollFor|Wait|GetState|State|Status|Busy|Ready|Done|Complete",
                    re.IGNORECASE)


@dataclass(frozen=True)
class DmaUse:
    start: DmaStart
    access: Access | None  # the access to the buffer; None when ``call`` hands it on
    call: CallFact | None
    seq: int


def early_uses(program: Program) -> list[DmaUse]:
    """Uses of a DMA buffer after its start and before anything that can be its completion."""
    plat = program.config.platform
    waits = set(plat.blocking) | set(plat.waits) | plat.locks.get("take", set())
    dma_calls = set(plat.dma_tx) | set(plat.dma_rx) | set(plat.cache_clean) | set(
        plat.cache_invalidate)
    isr_written = {a.fact.obj for a in program.accesses
                   if a.in_interrupt and a.fact.kind.writes}
    by_function: dict[str, list[Access]] = {}
    for a in program.accesses:
        by_function.setdefault(a.fact.function, []).append(a)
    out: list[DmaUse] = []
    for start in _through_helpers(program, [*program.dma_starts, *inferred_starts(program)]):
        c, buf = start.call, start.buffer
        if buf.scope not in ("global", "static"):
            continue
        path = _buffer_path(c, buf)
        accs = sorted(by_function.get(c.caller, ()), key=lambda a: a.fact.seq)
        calls = sorted(program.calls_by_caller.get(c.caller, ()), key=lambda x: x.seq)
        # The first point after the start that may be the completion: nothing after it counts.
        ends = [a.fact.seq for a in accs if a.fact.seq > c.seq and a.fact.kind.reads
                and a.fact.obj in isr_written and a.fact.obj != buf.var_usr]
        ends += [x.seq for x in calls if x.seq > c.seq and (
            x.callee_name in waits or _STOPS.search(x.callee_name))]
        end = min(ends, default=1 << 62)
        wanted = (lambda k: k.reads) if start.direction is Direction.rx else (lambda k: k.writes)
        hit = next((a for a in accs if c.seq < a.fact.seq < end and a.fact.obj == buf.var_usr
                    and not a.in_interrupt and wanted(a.fact.kind)
                    and paths_overlap(a.fact.path, path)), None)
        # A receive buffer handed on is read there; a transmit buffer handed on may only be
        # read (Buffercmp(tx, rx, n)): not judged.
        handed = next((x for x in calls if c.seq < x.seq < end and x is not c
                       and x.callee_name not in dma_calls
                       and any(t is not None and t[0] == buf.var_usr for t in x.targets)),
                      None) if start.direction is Direction.rx else None
        first = min((u for u in (hit, handed) if u is not None),
                    key=lambda u: u.fact.seq if hasattr(u, "fact") else u.seq, default=None)
        if first is None:
            continue
        if hasattr(first, "fact"):
            out.append(DmaUse(start, first, None, first.fact.seq))
        else:
            out.append(DmaUse(start, None, first, first.seq))
    return out


def _buffer_path(c: CallFact, buf: ArgFact) -> tuple[str, ...]:
    """The part of the object the DMA start hands over: ``&dev.rx[0]``, ``dev.rx`` -> (".rx",):
    an element address starts a run of elements, so the index steps are dropped."""
    path: list[str] = []
    for t in c.targets:
        if t is not None and t[0] == buf.var_usr:
            path = list(t[1])
            break
    else:  # an array member decays to its first element's address: read the text
        m = re.fullmatch(rf"&?\s*{re.escape(buf.var)}((?:\s*\.\s*\w+|\s*\[[^\]]*\])*)",
                         buf.text.strip())
        if m:
            path = ["." + f for f in re.findall(r"\.\s*(\w+)", m.group(1))]
    while path and path[-1].startswith("["):
        path.pop()
    return tuple(path)


# A driver call that hands a DMA channel its memory address (libopencm3's
# dma_set_memory_address, NuMicro's PDMA_SetTransferAddr, a *DMA*_SetBuffer): its name says DMA
# and an address, memory or buffer.
_DMA_WORD = re.compile(r"dma", re.IGNORECASE)
_ADDR_WORD = re.compile(r"addr|memory|buf", re.IGNORECASE)


def inferred_starts(program: Program) -> list[DmaStart]:
    """DMA starts no profile table lists, read by the call's words (``_DMA_WORD`` and
    ``_ADDR_WORD``, a call the program does not define) with a global array among its
    arguments (``dma_set_memory_address(DMA2, DMA_STREAM0, (uint32_t)s_adc_buf)``). Which way
    the transfer goes the program's own use tells: an array no task code writes is filled by
    the DMA (a receive); one task code writes is sent (a transmit)."""
    plat = program.config.platform
    listed = set(plat.dma_tx) | set(plat.dma_rx)
    task_written = {a.fact.obj for a in program.accesses if a.in_task and a.fact.kind.writes}
    out: list[DmaStart] = []
    for c in program.calls:
        name = c.callee_name
        if c.callee in program.functions or name in listed or not (
                _DMA_WORD.search(name) and _ADDR_WORD.search(name)):
            continue
        for t in c.targets:
            obj = program.objects.get(t[0]) if t is not None else None
            if obj is None or obj.is_scalar or "[" not in obj.type or obj.in_function:
                continue
            rx = obj.usr not in task_written
            arg = ArgFact(obj.name, obj.name, obj.usr, "global", True, obj.where)
            out.append(DmaStart(c, Direction.rx if rx else Direction.tx, arg))
            break
    return out


def _through_helpers(program: Program, starts: list[DmaStart]) -> list[DmaStart]:
    """The starts, and for a start made in a function of the program's own that is no entry
    point (``start_block()``, ``arm()``), the same start at each call of that function, up the
    callers (three levels): what the caller does with the buffer after the call comes after
    the start."""
    out = list(starts)
    todo = [(s, 0) for s in starts]
    seen = {(s.call.caller, s.call.where, s.buffer.var_usr) for s in starts}
    while todo:
        s, depth = todo.pop()
        fn = s.call.caller
        if depth >= 3 or fn in program.entries:
            continue
        for site in program.calls_by_callee.get(fn, ()):
            key = (site.caller, site.where, s.buffer.var_usr)
            if key in seen:
                continue
            seen.add(key)
            moved = DmaStart(site, s.direction, s.buffer)
            out.append(moved)
            todo.append((moved, depth + 1))
    return out
