/* A 64-bit tick count kept as two words: the task reads the high word, the low word, then the
   high word again, and retries when the handler carried between (the do-while's condition reads
   it again): no R-W-R. Read once more without a loop, the re-read decides nothing. */
#include "cmsis_stub.h"

volatile uint32_t ticks_lo, ticks_hi, stamp;

void TIM2_IRQHandler(void)
{
    if (++ticks_lo == 0u) {
        ticks_hi++;
    }
    stamp++;
}

static uint64_t now(void)
{
    uint32_t hi, lo;
    do {
        hi = ticks_hi;
        lo = ticks_lo;
    } while (hi != ticks_hi);
    return ((uint64_t)hi << 32) | lo;
}

int main(void)
{
    __enable_irq();
    for (;;) {
        uint32_t a = stamp;
        uint32_t b = stamp;          /* expect: BG101 */
        process((const uint8_t *)&a, (uint32_t)(now() + b));
    }
}
