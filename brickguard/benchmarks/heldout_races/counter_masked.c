/* Pulse counter with the main loop's update inside a PRIMASK critical section. */
#include "board.h"

static volatile uint32_t pulses;

void EXTI0_IRQHandler(void)
{
    pulses++;
}

static int take_hundred(void)
{
    int taken = 0;
    uint32_t primask = __get_PRIMASK();
    __disable_irq();
    if (pulses >= 100U) {
        pulses -= 100U;
        taken = 1;
    }
    __set_PRIMASK(primask);
    return taken;
}

int main(void)
{
    board_clock_init();
    NVIC_EnableIRQ(EXTI0_IRQn);
    for (;;) {
        if (take_hundred()) {
            led_toggle();
        }
    }
}
