/* Wheel stall detector on a Kinetis K22F with KSDK 1.3: the hall sensor on PTC6 interrupts on
 * every edge (PORTC) and records the edge time (PIT0 runs as a free microsecond timebase) and the
 * period; every 10 ms the PIT1 tick in main declares the wheel stalled when no edge came for two
 * periods, and cuts the drive. */
#include "ksdk1.h"

struct wheel {
    volatile uint32_t last_edge_us;
    volatile uint32_t period_us;
};

static struct wheel g_wheel;
static volatile uint32_t g_tick;
static uint32_t s_stalls;

void PORTC_IRQHandler(void)
{
    GPIO_DRV_ClearPinIntFlag(BOARD_SW2);
    uint32_t now = PIT_DRV_ReadTimerUs(0U, 0U);
    g_wheel.period_us = now - g_wheel.last_edge_us;
    g_wheel.last_edge_us = now;
}

void PIT1_IRQHandler(void)
{
    PIT_DRV_ClearIntFlag(0U, 1U);
    g_tick++;
}

int main(void)
{
    pit_user_config_t tick_cfg = {.isInterruptEnabled = true, .periodUs = 10000U};
    uint32_t seen = 0U;
    hardware_init();
    PIT_DRV_Init(0U, false);
    PIT_DRV_InitChannel(0U, 1U, &tick_cfg);
    NVIC_SetPriority(PORTC_IRQn, 3U);
    NVIC_SetPriority(PIT1_IRQn, 6U);
    INT_SYS_EnableIRQ(PORTC_IRQn);
    INT_SYS_EnableIRQ(PIT1_IRQn);
    PIT_DRV_StartTimer(0U, 1U);
    for (;;) {
        if (g_tick == seen) {
            continue;
        }
        seen = g_tick;
        OSA_EnterCritical(kCriticalDisableInt);
        uint32_t now = PIT_DRV_ReadTimerUs(0U, 0U);
        uint32_t since = now - g_wheel.last_edge_us;
        uint32_t limit = 2U * g_wheel.period_us;
        OSA_ExitCritical(kCriticalDisableInt);
        if (since > limit) {
            s_stalls++;
            FTM_DRV_PwmStop(0U, 0U);
            dbg_printf("stall %lu\n", (unsigned long)s_stalls);
        }
    }
    return 0;
}
