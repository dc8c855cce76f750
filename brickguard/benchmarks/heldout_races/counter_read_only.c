/* Millisecond tick read by a delay loop: one writer (the handler), one aligned word. */
#include "board.h"

static volatile uint32_t tick_ms;

void SysTick_Handler(void)
{
    tick_ms++;
}

static void delay_ms(uint32_t ms)
{
    uint32_t start = tick_ms;
    while ((tick_ms - start) < ms) {
        __WFI();
    }
}

int main(void)
{
    board_clock_init();
    SysTick_Config(168000U);
    for (;;) {
        led_toggle();
        delay_ms(500U);
    }
}
