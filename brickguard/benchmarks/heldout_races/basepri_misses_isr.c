/* Flow meter: BASEPRI masks priorities 4..15, but the sensor handler was raised to priority 2. */
#include "board.h"

static volatile uint32_t flow_ticks;
static volatile uint32_t flow_total;

void EXTI0_IRQHandler(void)
{
    flow_ticks++;
}

void TIM2_IRQHandler(void)
{
    TIM2->SR = 0U;
    led_toggle();
}

int main(void)
{
    board_clock_init();
    NVIC_SetPriority(TIM2_IRQn, 6U);
    NVIC_SetPriority(EXTI0_IRQn, 2U);
    NVIC_EnableIRQ(TIM2_IRQn);
    NVIC_EnableIRQ(EXTI0_IRQn);
    for (;;) {
        uint32_t old = __get_BASEPRI();
        __set_BASEPRI(4U << (8U - __NVIC_PRIO_BITS));
        flow_total += flow_ticks;
        flow_ticks = 0U;
        __set_BASEPRI(old);
        __WFI();
    }
}
