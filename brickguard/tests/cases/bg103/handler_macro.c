/* A handler defined through a macro named for one (``OS_IRQ_HANDLER(Vector40)``, as ChibiOS's
   OSAL_IRQ_HANDLER names a vector): its name says nothing, the macro does. A 64-bit total it
   adds to is read in two 32-bit loads by the task (``total``: torn when the handler carries into
   the high word between them); read inside a critical section it is whole (``spent``). */
#include "cmsis_stub.h"

#define OS_IRQ_HANDLER(id) void id(void)
#define TIMER_VECTOR Vector40
OS_IRQ_HANDLER(TIMER_VECTOR);

static volatile uint64_t total, spent;
static volatile uint32_t rate;

OS_IRQ_HANDLER(TIMER_VECTOR)
{
    total += rate;
    spent += rate;
}

static uint64_t read_total(void)
{
    uint64_t t = total;                  /* expect: BG103 `total` */
    return t;
}

static uint64_t read_spent(void)
{
    __disable_irq();
    uint64_t t = spent;
    __enable_irq();
    return t;
}

int main(void)
{
    rate = 0u;
    __enable_irq();
    for (;;) {
        rate = 5u;
        process((const uint8_t *)0, (uint32_t)(read_total() + read_spent()));
    }
}
