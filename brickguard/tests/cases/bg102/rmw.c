/* Read-modify-writes in task code of objects an interrupt also writes. */
#include "cmsis_stub.h"

volatile uint32_t events;
volatile uint32_t pending;
volatile uint32_t total;
volatile uint32_t config_word;       /* the ISR only reads it */
_Atomic uint32_t atomic_events;

void EXTI0_IRQHandler(void)
{
    events |= 1u;
    pending++;
    total = total + 2u;
    atomic_events++;
    if (config_word & 1u) {
        process(0, 0);
    }
}

void poll(void)
{
    events &= ~1u;                   /* expect: BG102 */ /* soak: no race here: the handler sets only the bit this clears (a lost set = the handler first) */
    pending--;                       /* expect: BG102 */
    total = total + 1u;              /* expect: BG102 */
    atomic_events++;                 /* _Atomic: the increment is atomic */
    config_word |= 2u;               /* the ISR never writes it: it sees old or new, whole */
    __disable_irq();
    pending++;                       /* inside a critical section */
    __enable_irq();
    taskENTER_CRITICAL();
    events ^= 4u;                    /* inside a FreeRTOS critical section (a macro) */
    taskEXIT_CRITICAL();
}

int main(void)
{
    uint32_t events = 0;             /* a local: not the shared object */
    __enable_irq();                  /* EXTI0 can fire from here on */
    events++;
    poll();
    return (int)events;
}
