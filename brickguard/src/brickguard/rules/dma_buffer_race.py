"""BG107: a DMA buffer used by the code while the transfer it started may still be using it."""

from __future__ import annotations

from collections.abc import Iterable

from brickguard.config import Config
from brickguard.dma import Direction
from brickguard.dma_race import early_uses
from brickguard.findings import Finding, Level
from brickguard.program import Program
from brickguard.rules.base import Rule
from brickguard.rules.messages import at, here


def check(program: Program, config: Config) -> Iterable[Finding]:
    for u in early_uses(program):
        start = u.start.call
        buf = u.start.buffer.var
        rx = u.start.direction is Direction.rx
        engine = "writes" if rx else "reads"
        if u.access is not None:
            f = u.access.fact
            what = f"`{f.text}` is {'read' if f.kind.reads and rx else 'written'}"
            where = f.where
        else:
            what = f"`{buf}` is handed to {u.call.callee_name}()"
            where = u.call.where
        harm = ("sees old bytes or a half-written message" if rx
                else "changes data the DMA has not sent yet")
        message = (
            f"{what} while the DMA transfer {start.callee_name}() started ({at(start.where)}) "
            f"may still be running: the DMA engine {engine} `{buf}` until the transfer "
            f"completes, and nothing between the start and here waits for that (a completion "
            f"flag its interrupt sets, a callback, a blocking wait), so this access {harm}"
        )
        started = here(start.where, f"{start.callee_name}: the DMA {engine} `{buf}` from here")
        used = here(where, "used before the transfer is known to be complete")
        yield Finding("BG107", RULE.level, message, used, related=(started,),
                      flow=(started, used))


RULE = Rule(
    id="BG107",
    title="DMA buffer used before its transfer completes",
    level=Level.warning,
    rationale=(
        "A DMA start returns at once; the DMA engine then writes the receive buffer (or reads "
        "the transmit buffer) by itself until the transfer completes. Code that reads a receive "
        "buffer right after the start races with the hardware: it sees the old contents, or "
        "part of the new message; writing a transmit buffer changes what is being sent."
    ),
    instead=(
        "Use the buffer only after the completion: in the completion callback, after a flag it "
        "sets (volatile, polled or tested), after a semaphore it gives, or after a blocking "
        "poll (HAL_DMA_PollForTransfer)."
    ),
    example_bad=(
        "uint8_t rx[16];\n"
        "void read_cmd(void) {\n"
        "  HAL_UART_Receive_DMA(&huart1, rx, 16);\n"
        "  process(rx, 16); }"
    ),
    example_good=(
        "uint8_t rx[16];\n"
        "volatile int rx_done;\n"
        "void HAL_UART_RxCpltCallback(UART_HandleTypeDef *h) { (void)h; rx_done = 1; }\n"
        "void read_cmd(void) {\n"
        "  HAL_UART_Receive_DMA(&huart1, rx, 16);\n"
        "  while (!rx_done) {}\n"
        "  process(rx, 16); }"
    ),
    check=check,
)
