/* W-R-W with two different steps of one update: the handler that only reads the word sees the
   value between them (mode cleared), one no serial order gives. The same step twice (a counter
   stepped twice) leaves a value the program means at each step; one store is whole. */
#include "cmsis_stub.h"

#define MODE_MASK 3u
volatile uint32_t heater_ctrl;
volatile uint32_t steps;
volatile uint32_t one_store;
volatile uint32_t seen;

void TIM2_IRQHandler(void)
{
    if ((heater_ctrl & MODE_MASK) == 0u) {
        seen = steps + one_store;
    }
}

void set_mode(uint32_t mode)
{
    heater_ctrl = heater_ctrl & ~MODE_MASK;
    heater_ctrl = heater_ctrl | mode;    /* expect: BG101 */
    steps--;
    steps--;                             /* a counter stepped twice */
    one_store = (one_store & ~MODE_MASK) | mode;
}

int main(void)
{
    __enable_irq();
    for (;;) {
        set_mode(2u);
    }
}
