/* Two TCPWM counters (PSoC 6, PDL): counter 0 paces the control loop, counter 1 counts the
 * overflows of a free-running capture timer. main consumes the overflow count with the counter's
 * interrupt disabled at the NVIC. */
#include "psoc6_pdl.h"

static volatile uint32_t g_overflows;
static volatile uint32_t g_loop_ticks;

static void loop_tick_isr(void)
{
    Cy_TCPWM_ClearInterrupt(TCPWM0, 0U, CY_TCPWM_INT_ON_TC);
    g_loop_ticks++;
}

static void capture_ovf_isr(void)
{
    Cy_TCPWM_ClearInterrupt(TCPWM0, 1U, CY_TCPWM_INT_ON_TC);
    g_overflows++;
}

static const cy_stc_sysint_t tick_cfg = {tcpwm_0_interrupts_0_IRQn, 4U};
static const cy_stc_sysint_t ovf_cfg = {tcpwm_0_interrupts_1_IRQn, 4U};

extern void timebase_extend(uint32_t overflows);

int main(void)
{
    uint32_t seen_ticks = 0U;
    (void)cybsp_init();
    (void)Cy_SysInt_Init(&tick_cfg, loop_tick_isr);
    (void)Cy_SysInt_Init(&ovf_cfg, capture_ovf_isr);
    NVIC_EnableIRQ(tick_cfg.intrSrc);
    NVIC_EnableIRQ(ovf_cfg.intrSrc);
    Cy_TCPWM_Enable_Multiple(TCPWM0, 3U);
    Cy_TCPWM_TriggerStart(TCPWM0, 3U);
    for (;;) {
        if (g_loop_ticks == seen_ticks) {
            continue;
        }
        seen_ticks = g_loop_ticks;
        NVIC_DisableIRQ(tcpwm_0_interrupts_0_IRQn);
        uint32_t ovf = g_overflows;
        g_overflows -= ovf;
        NVIC_EnableIRQ(tcpwm_0_interrupts_0_IRQn);
        timebase_extend(ovf);
    }
}
