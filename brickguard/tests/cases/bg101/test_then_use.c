/* R-W-R after a test: `if (x != 0) use(x)` reads x twice, and a handler write between makes the
   two reads differ. That breaks the program only when the write can leave a value the test
   excluded (a handle set to 0, then used). A count the handler only increments stays non-zero,
   a store of the value the test asked for keeps it, and a re-check inside a critical section
   decides on the value it reads there. */
#include "cmsis_stub.h"

volatile uint32_t dropped, handle, mode, state;
void log_u32(uint32_t v);

void USART1_IRQHandler(void)
{
    dropped++;
    handle = 0u;
    mode = 2u;
    state = 3u;
}

int main(void)
{
    __enable_irq();
    for (;;) {
        if (dropped != 0u) {
            log_u32(dropped);        /* a newer count, still not 0 */
        }
        if (handle != 0u) {
            log_u32(handle);         /* expect: BG101 */ /* soak: no race here: no code stores a non-zero handle (0 from reset, the handler stores only 0), so the test never passes and this line never runs */
        }
        if (mode == 2u) {
            log_u32(mode);           /* the handler stores only 2 */
        }
        if (state == 1u) {
            __disable_irq();
            if (state == 1u) {       /* re-checked with interrupts off */
                state = 0u;
            }
            __enable_irq();
        }
    }
}
