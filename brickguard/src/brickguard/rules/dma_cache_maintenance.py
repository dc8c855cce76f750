"""BG501: a DMA buffer whose data-cache lines are not maintained around the transfer.

On a core with a data cache (Cortex-M7, M55, M85) the DMA engine reads and writes memory, not
the cache. What is checked, kept simple on purpose:

- *transmit*: a DMA start (``HAL_UART_Transmit_DMA(&h, buf, n)``...) of buffer B must come after
  a clean of B (``SCB_CleanDCache_by_Addr(buf, ...)``) or of the whole cache, earlier in the same
  function. "Earlier" is by source position, not by path: a clean in one branch counts for both.
- *receive*: a global buffer B handed to a DMA receive start must be invalidated
  (``SCB_InvalidateDCache_by_Addr``, or the whole cache) in every function that reads it, before
  its first read there (the completion callback, or the task that consumes the data).

A buffer handed over through a pointer parameter is not followed (the caller's buffer is
unknown here); a clean done by a helper function is not seen either.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from brickguard.config import Config
from brickguard.dma import Direction, buffer_of
from brickguard.facts import AccessFact, ArgFact, CallFact, Where
from brickguard.findings import Finding, Level
from brickguard.program import Program
from brickguard.rules.base import Rule
from brickguard.rules.messages import here


def _before(a: Where, b: Where) -> bool:
    return a.file == b.file and (a.line, a.column) < (b.line, b.column)


def _maintains(calls: list[CallFact], by_addr: dict[str, int], whole: set[str], usr: str,
               before: Where) -> bool:
    for c in calls:
        if not _before(c.where, before):
            continue
        if c.callee_name in whole:
            return True
        if c.callee_name in by_addr:
            arg = buffer_of(c, by_addr[c.callee_name])
            if arg is not None and arg.var_usr == usr:
                return True
    return False


def check(program: Program, config: Config) -> Iterable[Finding]:
    if not config.has_dcache():
        return
    plat = config.platform
    by_caller = program.calls_by_caller
    rx_buffers: dict[str, tuple[CallFact, ArgFact]] = {}
    for start in program.dma_starts:
        c, arg = start.call, start.buffer
        if arg.scope == "param":
            continue
        if start.direction is Direction.rx:
            if arg.scope in ("global", "static"):
                rx_buffers.setdefault(arg.var_usr, (c, arg))
            continue
        if _maintains(by_caller[c.caller], plat.cache_clean, plat.clean_all, arg.var_usr, c.where):
            continue
        w = c.where
        message = (
            f"{c.callee_name}() starts a DMA transmit of `{arg.var}` without a data-cache clean "
            f"before it: the DMA may send stale memory while the new bytes sit in the cache "
            f"(call SCB_CleanDCache_by_Addr({arg.text}, size) first)"
        )
        yield Finding("BG501", RULE.level, message,
                      here(w, "DMA transmit starts here"))
    if not rx_buffers:
        return
    reads: dict[tuple[str, str], list[AccessFact]] = defaultdict(list)
    for a in program.accesses:
        if a.fact.obj in rx_buffers and a.fact.kind.reads:
            reads[(a.fact.obj, a.fact.function)].append(a.fact)
    for (obj, func), facts in sorted(reads.items(), key=lambda kv: kv[1][0].where.line):
        first = min(facts, key=lambda f: (f.where.line, f.where.column))
        calls = by_caller.get(func, [])
        if _maintains(calls, plat.cache_invalidate, plat.invalidate_all, obj, first.where):
            continue
        started_by, arg = rx_buffers[obj]
        name = program.functions[func].name if func in program.functions else "?"
        w, s = first.where, started_by.where
        message = (
            f"`{arg.var}` is filled by DMA ({started_by.callee_name}() at {s.file}:{s.line}) but "
            f"{name}() reads it without invalidating its cache lines first: it may read stale "
            f"cached bytes (call SCB_InvalidateDCache_by_Addr({arg.var}, size) before reading)"
        )
        started = here(s, "DMA receive starts here")
        yield Finding("BG501", RULE.level, message,
                      here(w, "read without invalidate"),
                      related=(started,), flow=(started, here(w, "read here")))


RULE = Rule(
    id="BG501",
    title="DMA buffer not cleaned before transmit or not invalidated before reading received data",
    level=Level.warning,
    rationale=(
        "On a Cortex-M7 (and M55/M85) the CPU works through a write-back data cache while DMA "
        "engines read and write RAM directly. Bytes written by the CPU can still be in the "
        "cache when a transmit starts, so the peripheral sends old data; bytes written by a "
        "receive land in RAM while the CPU keeps reading old cache lines. The code works with "
        "the cache off or in debug builds and fails with it on."
    ),
    instead=(
        "Clean the buffer's cache lines (SCB_CleanDCache_by_Addr(buf, size)) right before "
        "starting a transmit, and invalidate them (SCB_InvalidateDCache_by_Addr(buf, size)) "
        "after a receive completes and before reading. Or place DMA buffers in a non-cacheable "
        "region set up with the MPU, and say so in brickguard.toml ([dma] dcache = false)."
    ),
    example_bad=(
        "static uint8_t tx_buf[64] __attribute__((aligned(32)));\n"
        "void send(const uint8_t *msg, uint16_t n) {\n"
        "  memcpy(tx_buf, msg, n);\n"
        "  HAL_UART_Transmit_DMA(&huart1, tx_buf, n);\n"
        "}"
    ),
    example_good=(
        "static uint8_t tx_buf[64] __attribute__((aligned(32)));\n"
        "void send(const uint8_t *msg, uint16_t n) {\n"
        "  memcpy(tx_buf, msg, n);\n"
        "  SCB_CleanDCache_by_Addr((uint32_t *)tx_buf, sizeof tx_buf);\n"
        "  HAL_UART_Transmit_DMA(&huart1, tx_buf, n);\n"
        "}"
    ),
    check=check,
)
