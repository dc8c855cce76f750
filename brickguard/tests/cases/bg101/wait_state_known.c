/* A state the handler moves on only from WAIT (``if (m->state != WAIT) return;``), tested by
   the task after its wait loop (``while (m->state == WAIT) {}``) once and then again in an
   else arm: the loop's exit still knows the state is not WAIT there, so no handler store can
   come between the two tests. The tests and stores are made through a local pointer to the
   global (``m = &g_link``), which keeps what they test and store. A second state the handler
   stores without looking races the same way. */
#include "cmsis_stub.h"

typedef enum { USART1_IRQn = 37 } IRQn_Type;
void NVIC_EnableIRQ(IRQn_Type irqn);
void report(uint32_t v);

enum { IDLE, WAIT, OK, FAIL };

struct link {
    volatile uint32_t state;
    volatile uint32_t mode;
};

static struct link g_link;

void USART1_IRQHandler(void)
{
    struct link *m = &g_link;
    m->mode = OK;
    if (m->state != WAIT) {
        return;
    }
    m->state = OK;
}

int main(void)
{
    struct link *m = &g_link;
    NVIC_EnableIRQ(USART1_IRQn);
    for (;;) {
        m->state = WAIT;
        while (m->state == WAIT) {
        }
        if (m->state == OK) {
            report(1u);
        } else if (m->state == FAIL) {     /* no race: not WAIT, so the handler stores nothing */
            report(2u);
        }
        m->mode = WAIT;
        while (m->mode == WAIT) {
        }
        if (m->mode == OK) {
            report(3u);
        } else if (m->mode == FAIL) {      /* expect: BG101 */
            report(4u);
        }
    }
}
