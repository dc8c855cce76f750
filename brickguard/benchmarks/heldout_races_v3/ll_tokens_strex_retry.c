/* Rate limiter for telemetry frames: TIM3 adds a token every 10 ms, main spends one per frame.
 * STM32G4 LL drivers. */
#include <stdbool.h>
#include "stm32g4_ll.h"

#define TOKENS_MAX 8U

static volatile uint32_t g_tokens;

void TIM3_IRQHandler(void)
{
    if (LL_TIM_IsActiveFlag_UPDATE(TIM3) != 0U) {
        LL_TIM_ClearFlag_UPDATE(TIM3);
        if (g_tokens < TOKENS_MAX) {
            g_tokens = g_tokens + 1U;
        }
    }
}

static bool token_take(void)
{
    uint32_t t;
    do {
        t = __LDREXW(&g_tokens);
        if (t == 0U) {
            __CLREX();
            return false;
        }
    } while (__STREXW(t - 1U, &g_tokens) != 0U);
    return true;
}

extern bool telemetry_pending(void);
extern void telemetry_send_frame(void);

int main(void)
{
    SystemClock_Config();
    NVIC_SetPriority(TIM3_IRQn, 4U);
    LL_TIM_EnableIT_UPDATE(TIM3);
    LL_TIM_EnableCounter(TIM3);
    NVIC_EnableIRQ(TIM3_IRQn);
    for (;;) {
        if (telemetry_pending() && token_take()) {
            telemetry_send_frame();
        }
    }
}
