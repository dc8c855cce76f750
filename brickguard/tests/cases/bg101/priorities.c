/* Interrupt priorities: a more urgent handler preempts a less urgent one; equal priorities and
   unknown ones do not preempt each other. */
#include "cmsis_stub.h"

typedef enum { TIM2_IRQn = 28, TIM3_IRQn = 29, USART1_IRQn = 37, USART2_IRQn = 38 } IRQn_Type;
void HAL_NVIC_SetPriority(IRQn_Type irq, uint32_t preempt, uint32_t sub);

volatile uint32_t ticks, frames, shared_eq, unknown;

void TIM2_IRQHandler(void)           /* priority 1: the most urgent */
{
    ticks++;
    shared_eq++;
    unknown++;
}

void USART1_IRQHandler(void)         /* priority 5: TIM2 preempts it */
{
    ticks++;                         /* expect: BG102 */
    frames = frames + 1u;
}

void TIM3_IRQHandler(void)           /* priority 1, like TIM2: they do not preempt each other */
{
    shared_eq++;
}

void USART2_IRQHandler(void)         /* no priority set: taken not to be preempted */
{
    unknown++;
}

int main(void)
{
    HAL_NVIC_SetPriority(TIM2_IRQn, 1u, 0u);
    HAL_NVIC_SetPriority(TIM3_IRQn, 1u, 0u);
    HAL_NVIC_SetPriority(USART1_IRQn, 5u, 0u);
    __enable_irq();
    for (;;) {
    }
}
