/* A frame the handler rewrites element by element in a loop, copied by the task in a loop of
   its own: each element is one atomic load, the copy as a whole is not (an interrupt during it
   mixes two frames). Not inside a critical section, not when an ownership flag keeps the two
   loops apart, and not for a ring the task drains up to the handler's index (its loop's test
   reads the index: it walks only published slots). */
#include <stdbool.h>
#include "cmsis_stub.h"

#define N 8u
volatile uint8_t frame[N], locked[N], owned[N], ring[N];
volatile bool full;
volatile uint32_t head, tail;

void DMA1_Stream0_IRQHandler(void)
{
    for (uint32_t i = 0u; i < N; i++) {
        frame[i] = (uint8_t)i;
        locked[i] = (uint8_t)i;
    }
    if (!full) {
        for (uint32_t i = 0u; i < N; i++) {
            owned[i] = (uint8_t)i;
        }
        full = true;
    }
    for (uint32_t k = 0u; k < 2u; k++) {
        ring[head % N] = (uint8_t)k;
        head = head + 1u;
    }
}

int main(void)
{
    uint8_t out[N];
    __enable_irq();
    for (;;) {
        for (uint32_t i = 0u; i < N; i++) {
            out[i] = frame[i];       /* expect: BG101 */
        }
        __disable_irq();
        for (uint32_t i = 0u; i < N; i++) {
            out[i] = locked[i];
        }
        __enable_irq();
        if (full) {
            for (uint32_t i = 0u; i < N; i++) {
                out[i] = owned[i];
            }
            full = false;
        }
        while (tail != head) {
            out[0] = ring[tail % N];
            tail = tail + 1u;
        }
        process(out, N);
    }
}
