/* Millisecond uptime from TIM6 for protocol timeouts, STM32G4 LL drivers. */
#include <stdbool.h>
#include "stm32g4_ll.h"

static volatile uint64_t g_uptime_ms;

void TIM6_DAC_IRQHandler(void)
{
    if (LL_TIM_IsActiveFlag_UPDATE(TIM6) != 0U) {
        LL_TIM_ClearFlag_UPDATE(TIM6);
        g_uptime_ms++;
    }
}

static uint64_t uptime_ms(void)
{
    uint32_t primask = __get_PRIMASK();
    __disable_irq();
    uint64_t now = g_uptime_ms;
    __set_PRIMASK(primask);
    return now;
}

extern bool modbus_poll(void);
extern void modbus_reset_link(void);

int main(void)
{
    SystemClock_Config();
    NVIC_SetPriority(TIM6_DAC_IRQn, 3U);
    LL_TIM_EnableIT_UPDATE(TIM6);
    LL_TIM_EnableCounter(TIM6);
    NVIC_EnableIRQ(TIM6_DAC_IRQn);

    uint64_t last_frame = uptime_ms();
    for (;;) {
        uint64_t now = uptime_ms();
        if (modbus_poll()) {
            last_frame = now;
        } else if (now - last_frame > 3500U) {
            modbus_reset_link();
            last_frame = now;
        }
    }
}
