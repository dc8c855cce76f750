/* A helper updating a counter through a pointer (`*p = *p + 1` is one read-modify-write) is
   judged per place its callers pass: the handler passes &a.rx, main a pointer that is &a.rx or
   &a.tx (a conditional, or two assignments): they may meet. On b, main only ever passes &b.tx
   and the handler &b.rx: never the same word. */
#include "cmsis_stub.h"

typedef struct { uint32_t rx, tx; } stats_t;
volatile stats_t a, b;
uint32_t read_sensor(void);

static void bump(volatile uint32_t *p)
{
    *p = *p + 1u;                    /* expect: BG102 */
}

static void half(volatile uint32_t *q)
{
    *q = *q / 2u;
}

void USART1_IRQHandler(void)
{
    bump(&a.rx);
    half(&b.rx);
}

int main(void)
{
    __enable_irq();
    for (;;) {
        volatile uint32_t *which = read_sensor() != 0u ? &a.rx : &a.tx;
        bump(which);
        half(&b.tx);
    }
}
