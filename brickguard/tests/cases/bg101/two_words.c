/* One value in two words: the handler carries into the high word when the low one wraps. Read
   one after the other outside a critical section, the pair can mix two moments; a retry loop
   or a critical section makes it whole. Two counters that the handler updates independently
   are no pair, nor are a flag and the data it hands over. */
#include "cmsis_stub.h"

volatile uint32_t lo, hi, lo2, hi2, rx, tx, ready, stamp, now;

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
    if (ready == 0u) {               /* a handoff: the task reads stamp only while ready */
        stamp = now;
        ready = 1u;
    }
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
        if (ready != 0u) {
            c += stamp;
            ready = 0u;
        }
        process((const uint8_t *)&a, b + c + d + rx + tx);
    }
}
