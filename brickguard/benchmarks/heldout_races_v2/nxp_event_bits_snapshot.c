/* Event bits: the GPIO1 button handler and the PIT tick handler post events; the main loop takes
 * all pending bits at once with interrupts masked and handles them afterwards. */
#include "fsl_mini.h"

#define EVT_BUTTON (1U << 0)
#define EVT_TICK (1U << 1)

static volatile uint32_t g_events;

void GPIO1_Combined_0_15_IRQHandler(void)
{
    GPIO_PortClearInterruptFlags(GPIO1, GPIO_PortGetInterruptFlags(GPIO1));
    g_events |= EVT_BUTTON;
    SDK_ISR_EXIT_BARRIER;
}

void PIT_IRQHandler(void)
{
    PIT_ClearStatusFlags(PIT, kPIT_Chnl_0, kPIT_TimerFlag);
    g_events |= EVT_TICK;
    SDK_ISR_EXIT_BARRIER;
}

static uint32_t take_events(void)
{
    uint32_t primask = DisableGlobalIRQ();
    uint32_t pending = g_events;
    g_events = 0U;
    EnableGlobalIRQ(primask);
    return pending;
}

int main(void)
{
    uint32_t ticks = 0U;

    BOARD_InitHardware();
    NVIC_SetPriority(GPIO1_Combined_0_15_IRQn, 3U);
    NVIC_SetPriority(PIT_IRQn, 3U);
    EnableIRQ(GPIO1_Combined_0_15_IRQn);
    EnableIRQ(PIT_IRQn);
    PIT_StartTimer(PIT, kPIT_Chnl_0);

    for (;;) {
        uint32_t ev = take_events();
        if ((ev & EVT_TICK) != 0U) {
            ticks++;
        }
        if ((ev & EVT_BUTTON) != 0U) {
            app_log_u32(ticks);
        }
    }
}
