"""BG111: an RTOS call made from interrupt context by its task variant (xQueueSend, not
xQueueSendFromISR). The platform profiles list each task API and its interrupt-safe twin."""

from __future__ import annotations

from collections.abc import Iterable

from brickguard.config import Config
from brickguard.findings import Finding, Level
from brickguard.program import Program
from brickguard.rules.base import Rule
from brickguard.rules.messages import chain_text, flow, here


def check(program: Program, config: Config) -> Iterable[Finding]:
    variants = config.platform.isr_variants
    for c, chain in program.interrupt_calls:
        twin = variants.get(c.callee_name)
        if twin is None:
            continue
        name = c.callee_name
        message = (
            f"{name}() is the task variant and runs in interrupt context "
            f"({chain_text(chain, name + '()')}): use {twin}() there"
        )
        yield Finding(
            "BG111", RULE.level, message, here(c.where, f"{name}() called here; use {twin}()"),
            flow=flow(program, chain, c, f"{name}(): task-only API"),
        )


RULE = Rule(
    id="BG111",
    title="RTOS task API called from interrupt context instead of its interrupt-safe variant",
    level=Level.error,
    rationale=(
        "RTOS kernels keep two versions of many calls. The task version may block, and it "
        "yields by asking the scheduler directly; called from an interrupt it can corrupt the "
        "ready lists, trip configASSERT (FreeRTOS checks the interrupt priority), or switch "
        "context in the middle of the handler. It often seems to work until two interrupts "
        "nest or the queue is full."
    ),
    instead=(
        "Call the interrupt-safe twin (xQueueSendFromISR, xSemaphoreGiveFromISR, "
        "vTaskNotifyGiveFromISR, xTimerStartFromISR, ...), pass it a "
        "BaseType_t xHigherPriorityTaskWoken, and end the handler with "
        "portYIELD_FROM_ISR(xHigherPriorityTaskWoken)."
    ),
    example_bad=(
        "extern QueueHandle_t rx_queue;\n"
        "void USART1_IRQHandler(void) {\n"
        "  uint8_t b = (uint8_t)USART1->DR;\n"
        "  xQueueSend(rx_queue, &b, 0);\n"
        "}"
    ),
    example_good=(
        "extern QueueHandle_t rx_queue;\n"
        "void USART1_IRQHandler(void) {\n"
        "  BaseType_t woken = pdFALSE; uint8_t b = (uint8_t)USART1->DR;\n"
        "  xQueueSendFromISR(rx_queue, &b, &woken);\n"
        "  portYIELD_FROM_ISR(woken);\n"
        "}"
    ),
    check=check,
)
