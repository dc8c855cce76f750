/* 64-bit microsecond uptime advanced by SysTick, read by the scheduler loop. */
#include "board.h"

static volatile uint64_t uptime_us;
static uint64_t next_blink_us = 500000U;

void SysTick_Handler(void)
{
    uptime_us += 1000U;
}

int main(void)
{
    board_clock_init();
    SysTick_Config(168000U);
    for (;;) {
        uint64_t now = uptime_us;
        if (now >= next_blink_us) {
            next_blink_us = now + 500000U;
            led_toggle();
        }
    }
}
