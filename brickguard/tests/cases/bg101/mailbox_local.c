/* A one-slot mailbox tested through a local copy. The receive handler stores a command only
   where its own test saw the slot empty (``if (slot != 0) { overflows++; return; }``); the task
   copies the slot into a local, tests the copy and empties the slot only in the arm where the
   copy was not zero: that arm knows the slot held a command when it was read, and while it
   holds one no handler store can come, so the clear loses nothing. Kept (races): ``box``, whose
   handler stores whatever the slot holds (no test of it), and ``cmd2``, whose copy is
   overwritten between its read and its test (the test knows nothing of the slot any more). */
#include "cmsis_stub.h"

volatile uint8_t slot;
volatile uint32_t overflows;
volatile uint8_t box;
volatile uint8_t cmd2;

uint8_t uart_byte(void);
void step(uint8_t c);

void USART1_IRQHandler(void)
{
    uint8_t c = uart_byte();
    box = c;
    if (cmd2 == 0u) {
        cmd2 = c;
    }
    if (slot != 0u) {
        overflows++;
        return;
    }
    slot = c;
}

int main(void)
{
    for (;;) {
        uint8_t cmd = slot;
        if (cmd != 0u) {
            slot = 0u;                     /* the copy saw a command: the handler stores none */
        }
        step(cmd);
        uint8_t b = box;
        if (b != 0u) {
            box = 0u;                      /* expect: BG101 */
        }
        step(b);
        uint8_t d = cmd2;
        d = uart_byte();
        if (d != 0u) {
            cmd2 = 0u;                     /* expect: BG101 */
        }
        step(d);
    }
}
