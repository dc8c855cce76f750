/* An elapsed test and the record of the time: ``if (ms - last < 10u) continue; last = ms;``.
   On a count the handler only steps up, a tick between the test and the record is a count that
   has reached the bound too: the record takes the newer time, as if the tick came before the
   test (the period stretches by a tick, as it would). Not covered: a record in the arm where
   the bound was not reached (``slow``: a newer count there may have reached it, and the task
   then waits a whole period from a time it did not test), nor a count the handler sets back. */
#include "cmsis_stub.h"

volatile uint32_t ms, slow, laps;

void work(uint32_t n);

void SysTick_Handler(void)
{
    ms++;
    slow++;
    if (laps > 100u) {
        laps = 0u;
    } else {
        laps++;
    }
}

int main(void)
{
    uint32_t last = 0u, since = 0u, lap0 = 0u;
    __enable_irq();
    for (;;) {
        if (ms - last < 10u) {
            continue;
        }
        last = ms;                         /* the bound was reached: a newer count reached it */
        work(last);
        if (slow - since >= 5u) {
            work(since);
        } else {
            since = slow;                  /* expect: BG101 */
        }
        if (laps - lap0 > 3u) {
            lap0 = laps;                   /* expect: BG101 */
        }
    }
}
