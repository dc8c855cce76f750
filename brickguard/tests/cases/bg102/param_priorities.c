/* Priorities set by calls no table names, read by their parameters' names: GD32's
   nvic_irq_enable(irq, pre, sub) (only the pre-emption part preempts) and pico-sdk's
   irq_set_priority(num, hardware_priority) (the NVIC register byte: top bits implemented). */
#include "cmsis_stub.h"

#define __NVIC_PRIO_BITS 4u
typedef enum { TIM2_IRQn = 28, SPI1_IRQn = 35, SPI2_IRQn = 36, SPI3_IRQn = 51, USART1_IRQn = 37,
               USART2_IRQn = 38 } IRQn_Type;
void nvic_irq_enable(uint8_t nvic_irq, uint8_t nvic_irq_pre_priority, uint8_t nvic_irq_sub_priority);
void irq_set_priority(unsigned num, uint8_t hardware_priority);

volatile uint32_t budget, credits, level, pair;

void USART1_IRQHandler(void)             /* pre-emption 1 */
{
    budget--;
}

void TIM2_IRQHandler(void)               /* pre-emption 2: USART1 preempts it */
{
    budget = budget + 8u;                /* expect: BG102 */
    credits = credits + 8u;
}

void USART2_IRQHandler(void)             /* pre-emption 2, sub-priority 0 */
{
    credits--;                           /* TIM2 has the same pre-emption priority */
}

void SPI1_IRQHandler(void)               /* 0x40: level 4 */
{
    level += 16u;
}

void SPI2_IRQHandler(void)               /* 0x80: level 8 */
{
    level = level / 2u;                  /* expect: BG102 */
    pair = pair / 2u;
}

void SPI3_IRQHandler(void)               /* 0x88: level 8 too (the low 4 bits are not there) */
{
    pair += 16u;
}

int main(void)
{
    nvic_irq_enable(TIM2_IRQn, 2u, 0u);
    nvic_irq_enable(USART1_IRQn, 1u, 3u);
    nvic_irq_enable(USART2_IRQn, 2u, 1u);
    irq_set_priority(SPI1_IRQn, 0x40);
    irq_set_priority(SPI2_IRQn, 0x80);
    irq_set_priority(SPI3_IRQn, 0x88);
    __enable_irq();
    for (;;) {
    }
}
