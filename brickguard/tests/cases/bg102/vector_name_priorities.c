/* libopencm3's conventions: the handlers are the weak vector names `<periph>_isr` and the lines
   the device's `NVIC_<PERIPH>_IRQ` numbers, given priorities as register bytes. The two spell
   one peripheral in two conventions: tim2_isr runs at NVIC_TIM2_IRQ's priority, so it
   preempts usart2_isr; exti0_isr shares usart2_isr's level and does not. */
#include <stdint.h>

#define __NVIC_PRIO_BITS 4u
#define NVIC_EXTI0_IRQ 6
#define NVIC_TIM2_IRQ 28
#define NVIC_USART2_IRQ 38

void nvic_set_priority(uint8_t irqn, uint8_t priority);
void nvic_enable_irq(uint8_t irqn);

volatile uint32_t credit, edges;

void tim2_isr(void)
{
    credit += 12u;
}

void usart2_isr(void)
{
    credit -= 1u;                /* expect: BG102 */
    edges -= 1u;                 /* exti0 is at the same level: no preemption */
}

void exti0_isr(void)
{
    edges += 1u;
}

int main(void)
{
    nvic_set_priority(NVIC_TIM2_IRQ, 0x40);
    nvic_set_priority(NVIC_USART2_IRQ, 0x80);
    nvic_set_priority(NVIC_EXTI0_IRQ, 0x80);
    nvic_enable_irq(NVIC_TIM2_IRQ);
    nvic_enable_irq(NVIC_USART2_IRQ);
    nvic_enable_irq(NVIC_EXTI0_IRQ);
    for (;;) {
    }
}
