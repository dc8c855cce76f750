/* Microsecond uptime kept by PIT channel 0 (every 1000 us), read by the main loop for
 * timestamps. */
#include "fsl_mini.h"

static volatile uint64_t g_uptimeUs;

void PIT_IRQHandler(void)
{
    PIT_ClearStatusFlags(PIT, kPIT_Chnl_0, kPIT_TimerFlag);
    g_uptimeUs += 1000U;
    SDK_ISR_EXIT_BARRIER;
}

static uint64_t uptime_us(void)
{
    return g_uptimeUs;
}

int main(void)
{
    uint64_t last = 0U;

    BOARD_InitHardware();
    NVIC_SetPriority(PIT_IRQn, 2U);
    EnableIRQ(PIT_IRQn);
    PIT_StartTimer(PIT, kPIT_Chnl_0);

    for (;;) {
        uint64_t now = uptime_us();
        if (now - last >= 500000U) {
            app_log_u64(now);
            last = now;
        }
    }
}
