/* What a wait loop's exit and an early return know: after ``while (!ready) {}`` the flag is set,
   after ``if (ready) return;`` it is clear. An ownership flag (the handler fills the line only
   where it saw the flag clear and then sets it; the task uses the line only where it saw the
   flag set and clears it after) keeps the two sides apart: the handler cannot come between the
   task's accesses to the line, nor set the flag between the task's wait and its clear. */
#include "cmsis_stub.h"

volatile uint32_t ready;
volatile uint32_t len;
volatile uint32_t free_len;                /* the handler fills it without looking at the flag */

void consume(uint32_t n);
uint32_t next_byte(void);

void USART1_IRQHandler(void)
{
    free_len++;
    if (ready) {
        return;                            /* the task owns the line */
    }
    len++;
    if (next_byte() == '\n') {
        ready = 1u;
    }
}

int main(void)
{
    __enable_irq();
    for (;;) {
        while (!ready) {
        }
        consume(len);
        len = 0u;                          /* the handler does not touch it while ready */
        consume(free_len);
        free_len = 0u;                     /* expect: BG101 */
        ready = 0u;                        /* set only where the handler saw it clear */
    }
}
