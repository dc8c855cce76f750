/* 64-bit microsecond uptime read with interrupts masked (PRIMASK saved and restored). */
#include "board.h"

static volatile uint64_t uptime_us;
static uint64_t next_blink_us = 500000U;

void SysTick_Handler(void)
{
    uptime_us += 1000U;
}

static uint64_t uptime_get(void)
{
    uint32_t primask = __get_PRIMASK();
    __disable_irq();
    uint64_t now = uptime_us;
    __set_PRIMASK(primask);
    return now;
}

int main(void)
{
    board_clock_init();
    SysTick_Config(168000U);
    for (;;) {
        uint64_t now = uptime_get();
        if (now >= next_blink_us) {
            next_blink_us = now + 500000U;
            led_toggle();
        }
    }
}
