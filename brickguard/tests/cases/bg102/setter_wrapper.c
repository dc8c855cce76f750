/* A priority set through the program's own wrapper, whose body hands its parameters on to
   NVIC_SetPriority (no parameter name says priority): the body says which is which. */
#include <stdint.h>

typedef enum { EXTI0_IRQn = 6, EXTI1_IRQn = 7, TIM7_IRQn = 55 } IRQn_Type;
void NVIC_SetPriority(IRQn_Type irq, uint32_t priority);
void NVIC_EnableIRQ(IRQn_Type irq);

static void line_level(IRQn_Type which, uint32_t lv)
{
    NVIC_SetPriority(which, lv);
    NVIC_EnableIRQ(which);
}

volatile uint32_t presses, ticks;

void EXTI0_IRQHandler(void)
{
    presses += 1u;
    ticks += 1u;
}

void EXTI1_IRQHandler(void)
{
    ticks -= 1u;                 /* the same level as EXTI0: neither preempts the other */
}

void TIM7_IRQHandler(void)
{
    presses -= 1u;               /* expect: BG102 */
}

int main(void)
{
    line_level(EXTI0_IRQn, 2u);
    line_level(EXTI1_IRQn, 2u);
    line_level(TIM7_IRQn, 5u);
    for (;;) {
    }
}
