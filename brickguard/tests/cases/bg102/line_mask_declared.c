/* A vendor library's own one-line mask, declared with no body here (Artery's
   ``nvic_irq_disable(IRQn_Type irqn)`` / ``nvic_irq_enable(irqn, preempt, sub)``): its first
   parameter is the IRQ number and its name says it switches the line off or on, so it masks
   that line alone, like ``HAL_NVIC_DisableIRQ``. A call of the same shape that sets the line
   pending masks nothing. */
#include "cmsis_stub.h"

typedef enum { TMR2_GLOBAL_IRQn = 28, TMR3_GLOBAL_IRQn = 29 } IRQn_Type;
void nvic_irq_enable(IRQn_Type irqn, uint32_t preempt_priority, uint32_t sub_priority);
void nvic_irq_disable(IRQn_Type irqn);
void nvic_irq_pending_set(IRQn_Type irqn);

volatile uint32_t steps, both, pend;

void TMR2_GLOBAL_IRQHandler(void)
{
    steps--;
    both--;
    pend--;
}

void TMR3_GLOBAL_IRQHandler(void)
{
    both++;
}

int main(void)
{
    nvic_irq_enable(TMR2_GLOBAL_IRQn, 1u, 0u);
    nvic_irq_enable(TMR3_GLOBAL_IRQn, 1u, 0u);
    for (;;) {
        nvic_irq_disable(TMR2_GLOBAL_IRQn);
        steps += 5u;                   /* TMR2's line is off: its only other writer waits */
        both += 5u;                    /* expect: BG102 */
        nvic_irq_enable(TMR2_GLOBAL_IRQn, 1u, 0u);
        nvic_irq_pending_set(TMR2_GLOBAL_IRQn);
        pend += 5u;                    /* expect: BG102 */
    }
}
