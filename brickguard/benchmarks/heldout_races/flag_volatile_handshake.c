/* Button press handoff: the EXTI handler publishes a timestamp only when the slot is free. */
#include "board.h"

static volatile uint32_t press_ready;
static volatile uint32_t press_time;
static volatile uint32_t now_ms;

void SysTick_Handler(void)
{
    now_ms = now_ms + 1U;
}

void EXTI0_IRQHandler(void)
{
    if (press_ready == 0U) {
        press_time = now_ms;
        press_ready = 1U;
    }
}

int main(void)
{
    uint32_t last = 0U;

    board_clock_init();
    SysTick_Config(168000U);
    NVIC_EnableIRQ(EXTI0_IRQn);
    for (;;) {
        if (press_ready != 0U) {
            uint32_t t = press_time;
            press_ready = 0U;
            if (t - last > 50U) {
                led_toggle();
            }
            last = t;
        }
    }
}
