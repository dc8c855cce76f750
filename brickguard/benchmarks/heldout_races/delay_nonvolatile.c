/* Busy-wait delay counted down by SysTick through a plain variable. */
#include "board.h"

static uint32_t delay_left;

void SysTick_Handler(void)
{
    if (delay_left > 0U) {
        delay_left--;
    }
}

static void delay_ms(uint32_t ms)
{
    delay_left = ms;
    while (delay_left != 0U) {
    }
}

int main(void)
{
    board_clock_init();
    SysTick_Config(168000U);
    for (;;) {
        led_toggle();
        delay_ms(250U);
    }
}
