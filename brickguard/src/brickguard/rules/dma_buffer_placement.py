"""BG502: a DMA buffer on the stack, or a global DMA buffer not aligned to (and sized in) whole
cache lines on a target with a data cache.

A stack buffer is reported on any target: the function may return (and its frame be reused)
while the transfer runs, and on a Cortex-M7 the stack often sits in DTCM, which most DMA engines
cannot reach. Alignment is read from ``aligned(N)`` / ``_Alignas(N)`` (literal or macro) and the
type; an alignment brickguard cannot read is not reported.
"""

from __future__ import annotations

from collections.abc import Iterable

from brickguard.config import Config
from brickguard.findings import Finding, Level
from brickguard.program import Program
from brickguard.rules.base import Rule
from brickguard.rules.messages import here


def check(program: Program, config: Config) -> Iterable[Finding]:
    dcache, line = config.has_dcache(), config.cache_line
    reported: set[str] = set()
    for start in sorted(program.dma_starts, key=lambda s: (s.call.where.file, s.call.where.line)):
        c, arg = start.call, start.buffer
        w = c.where
        call = here(w, f"{c.callee_name}() starts the transfer")
        if arg.scope == "local" and arg.is_array:
            message = (
                f"`{arg.var}` is a stack buffer handed to {c.callee_name}(): the DMA keeps "
                f"using it after the function returns and its frame is reused (and on a "
                f"Cortex-M7 the stack may be in DTCM, out of the DMA's reach); make it static "
                f"or global"
            )
            yield Finding("BG502", RULE.level, message, call)
            continue
        if not dcache or arg.scope not in ("global", "static") or arg.var_usr in reported:
            continue
        obj = program.objects.get(arg.var_usr)
        if obj is None or obj.align < 0:
            continue
        problems = []
        if obj.align < line:
            problems.append(f"aligned to {max(obj.align, 1)} bytes, not {line}")
        if obj.size > 0 and obj.size % line:
            problems.append(f"{obj.size} bytes, not a whole number of {line}-byte lines")
        if not problems:
            continue
        reported.add(arg.var_usr)
        d = obj.where
        message = (
            f"DMA buffer `{obj.name}` is {' and '.join(problems)}: cleaning or invalidating its "
            f"cache lines also hits the neighbouring variables sharing them "
            f"(declare it __attribute__((aligned({line}))) with a size rounded up to {line})"
        )
        yield Finding("BG502", RULE.level, message,
                      here(d, "declared here"), related=(call,))


RULE = Rule(
    id="BG502",
    title="DMA buffer on the stack, or not aligned to whole data-cache lines",
    level=Level.warning,
    rationale=(
        "Cache maintenance works on whole lines (32 bytes on a Cortex-M7). When a DMA buffer "
        "shares a line with other variables, invalidating it after a receive throws away "
        "their new values, and cleaning it writes back stale ones: corruption far from the "
        "DMA code. A buffer on the stack is worse: the transfer outlives the function and "
        "scribbles over whatever the next call puts in that frame."
    ),
    instead=(
        "Declare DMA buffers static or global, aligned to the cache line and sized in whole "
        "lines: `static uint8_t rx_buf[64] __attribute__((aligned(32)));` (or _Alignas(32)); "
        "or put them in a non-cacheable memory region."
    ),
    example_bad=(
        "static uint8_t rx_buf[20];\n"
        "void start(void) { uint8_t tx[8]; HAL_SPI_Transmit_DMA(&hspi1, tx, 8);\n"
        "  HAL_UART_Receive_DMA(&huart1, rx_buf, 20); }"
    ),
    example_good=(
        "static uint8_t tx[32] __attribute__((aligned(32)));\n"
        "static uint8_t rx_buf[32] __attribute__((aligned(32)));\n"
        "void start(void) { SCB_CleanDCache_by_Addr((uint32_t *)tx, sizeof tx);\n"
        "  HAL_SPI_Transmit_DMA(&hspi1, tx, 8); HAL_UART_Receive_DMA(&huart1, rx_buf, 32); }"
    ),
    check=check,
)
