/* A state machine shared by a handler and the task. The handler's `switch (state)` says which
   state each of its stores comes from: the task's `if (state == OVERRUN) { ...; state = IDLE; }`
   cannot lose a store made from IDLE or RECEIVING, and the handler's store of OVERRUN in
   OVERRUN changes nothing. From READY the handler moves to OVERRUN, which the task's store of
   IDLE loses. A case reached by falling through from another tells nothing of the state. */
#include "cmsis_stub.h"

enum { IDLE, RECEIVING, READY, OVERRUN };
volatile uint32_t state, state2, len;
void nak(void);
void handle(void);

void USART1_IRQHandler(void)
{
    switch (state) {
    case IDLE:
        len = 0u;
        state = RECEIVING;
        break;
    case RECEIVING:
        if (++len == 8u) {
            state = READY;
        }
        break;
    default:
        state = OVERRUN;
        break;
    }
    switch (state2) {
    case 1:
        len = 1u;
        /* falls through */
    case 2:
        state2 = 5u;
        break;
    default:
        break;
    }
}

int main(void)
{
    __enable_irq();
    for (;;) {
        if (state == OVERRUN) {
            nak();
            state = IDLE;
        } else if (state == READY) {
            handle();
            state = IDLE;            /* expect: BG101 */
        }
        if (state2 == 1u) {
            state2 = 0u;             /* expect: BG101 */ /* soak: no race here: no code stores 1 in state2 (0 from reset; the handler stores 5, only from 1 or 2, and main 0), so the test never passes and this line never runs */
        }
    }
}
