/* An ownership flag: the handler fills the frame and sets the flag only while the flag says the
   frame is free (`if (!full)`), the task empties it and clears the flag only while the flag says
   it is full. Between the task's test and its clear no handler store can come (it needs the
   flag clear, and only the task clears it), so the pair is not an atomicity violation. A handler
   that sets the flag whatever it holds races (its second frame is lost when the task clears).
   `true`/`false` are stdbool's macros: the stored constants are read through them. */
#include <stdbool.h>
#include "cmsis_stub.h"

volatile bool full, busy;
volatile uint8_t frame[8], other[8];

void USART1_IRQHandler(void)
{
    if (!full) {
        frame[0] = 1u;
        full = true;
    }
    other[0] = 2u;
    busy = true;
}

int main(void)
{
    uint8_t a, b;
    __enable_irq();
    for (;;) {
        if (full) {
            a = frame[0];
            full = false;        /* owned: the handler cannot store between */
        }
        if (busy) {
            b = other[0];
            busy = false;        /* expect: BG101 */
        }
        process(&a, b);
    }
}
