/* Former false alarms: sections that are balanced or handed over on purpose. */
#include "cmsis_stub.h"

void xPortStartScheduler(void);
volatile uint32_t ready;

void start_scheduler(void)
{
    __disable_irq();                 /* the first task's status word re-enables interrupts */
    xPortStartScheduler();
}

void masked_copy(void)
{
    uint32_t primask = __get_PRIMASK();
    __set_PRIMASK(1);                /* masks interrupts: it restores nothing */
    ready = 0u;
    __set_PRIMASK(primask);
}

void leaky(void)
{
    __disable_irq();
    if (ready) {
        return;                      /* expect: BG105 */
    }
    __enable_irq();
}

void USART3_IRQHandler(void) { ready = 1u; }
