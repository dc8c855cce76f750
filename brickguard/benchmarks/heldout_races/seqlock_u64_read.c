/* 64-bit pulse total kept as two words; the main loop re-reads the high word until it is stable. */
#include "board.h"

static volatile uint32_t total_lo;
static volatile uint32_t total_hi;

void EXTI0_IRQHandler(void)
{
    total_lo = total_lo + 1U;
    if (total_lo == 0U) {
        total_hi = total_hi + 1U;
    }
}

static uint64_t total_read(void)
{
    uint32_t hi;
    uint32_t lo;
    do {
        hi = total_hi;
        lo = total_lo;
    } while (hi != total_hi);
    return ((uint64_t)hi << 32) | lo;
}

int main(void)
{
    uint64_t last = 0U;

    board_clock_init();
    NVIC_EnableIRQ(EXTI0_IRQn);
    for (;;) {
        uint64_t now = total_read();
        if (now - last >= 1000U) {
            last = now;
            led_toggle();
        }
    }
}
