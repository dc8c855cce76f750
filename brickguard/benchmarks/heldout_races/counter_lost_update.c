/* Pulse counter: the encoder interrupt counts pulses, the main loop subtracts what it consumed. */
#include "board.h"

static volatile uint32_t pulses;

void EXTI0_IRQHandler(void)
{
    pulses++;
}

int main(void)
{
    board_clock_init();
    NVIC_EnableIRQ(EXTI0_IRQn);
    for (;;) {
        uint32_t n = pulses;
        if (n >= 100U) {
            led_toggle();
            pulses -= 100U;
        }
    }
}
