/* A change test and the record of the new value: ``if (ticks == seen) continue; seen = ticks;``.
   On a counter the handler only counts up, a tick between the test and the record still differs
   from what was seen (the record takes the newer count, as if the tick came before the test).
   A handler that can also set the counter back (``laps = 0``) is not covered: the record can
   store the very value seen before (0 after a reset from 0), and the loop then handles a change
   that did not happen. */
#include "cmsis_stub.h"

volatile uint32_t ticks;
volatile uint32_t laps;

void work(uint32_t n);

void TIM2_IRQHandler(void)
{
    ticks++;
}

void TIM3_IRQHandler(void)
{
    if (laps > 100u) {
        laps = 0u;
    } else {
        laps++;
    }
}

int main(void)
{
    uint32_t seen = 0u;
    uint32_t seen_laps = 0u;
    __enable_irq();
    for (;;) {
        if (ticks == seen) {
            continue;
        }
        seen = ticks;
        if (laps != seen_laps) {
            seen_laps = laps;                /* expect: BG101 */
            work(seen_laps);
        }
        work(seen);
    }
}
