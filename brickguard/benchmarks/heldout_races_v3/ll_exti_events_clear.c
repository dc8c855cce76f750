/* Button and hall-sensor events from EXTI lines 13/14, a tick from TIM7; STM32G4 LL drivers. */
#include "stm32g4_ll.h"

#define EV_BUTTON (1UL << 0)
#define EV_HALL (1UL << 1)
#define EV_TICK (1UL << 2)

static volatile uint32_t g_events;

void EXTI15_10_IRQHandler(void)
{
    if (LL_EXTI_IsActiveFlag_0_31(LL_EXTI_LINE_13) != 0U) {
        LL_EXTI_ClearFlag_0_31(LL_EXTI_LINE_13);
        g_events |= EV_BUTTON;
    }
    if (LL_EXTI_IsActiveFlag_0_31(LL_EXTI_LINE_14) != 0U) {
        LL_EXTI_ClearFlag_0_31(LL_EXTI_LINE_14);
        g_events |= EV_HALL;
    }
}

void TIM7_IRQHandler(void)
{
    LL_TIM_ClearFlag_UPDATE(TIM7);
    g_events |= EV_TICK;
}

extern void ui_button(void);
extern void motor_commutate(void);
extern void ui_tick(void);

int main(void)
{
    SystemClock_Config();
    NVIC_SetPriority(EXTI15_10_IRQn, 6U);
    NVIC_SetPriority(TIM7_IRQn, 6U);
    NVIC_EnableIRQ(EXTI15_10_IRQn);
    LL_TIM_EnableIT_UPDATE(TIM7);
    LL_TIM_EnableCounter(TIM7);
    NVIC_EnableIRQ(TIM7_IRQn);
    for (;;) {
        uint32_t ev = g_events;
        if ((ev & EV_HALL) != 0U) {
            g_events &= ~EV_HALL;
            motor_commutate();
        }
        if ((ev & EV_BUTTON) != 0U) {
            g_events &= ~EV_BUTTON;
            ui_button();
        }
        if ((ev & EV_TICK) != 0U) {
            g_events &= ~EV_TICK;
            ui_tick();
        }
    }
}
