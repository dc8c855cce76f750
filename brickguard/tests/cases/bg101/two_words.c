/* One value in two words: the handler carries into the high word when the low one wraps. Read
   one after the other outside a critical section, the pair can mix two moments; a retry loop
   or a critical section makes it whole. Two counters that the handler updates independently
   are no pair. */
#include "cmsis_stub.h"

volatile uint32_t lo, hi, lo2, hi2, rx, tx;

void TIM2_IRQHandler(void)
{
    if (++lo == 0u) {
        hi++;
    }
    if (++lo2 == 0u) {
        hi2++;
    }
    rx++;
    tx++;
}

int main(void)
{
    uint32_t a, b, c, d;
    __enable_irq();
    for (;;) {
        a = hi;
        b = lo;                      /* expect: BG101 */
        __disable_irq();
        c = hi2;
        d = lo2;
        __enable_irq();
        process((const uint8_t *)&a, b + c + d + rx + tx);
    }
}
