/* Microsecond uptime kept by TMR0 (1 ms period) as a 64-bit count; main stamps log lines with it
 * and runs a job every 250 ms. */
#include "mxc_msdk.h"

static volatile uint64_t s_uptime_us;
static volatile uint32_t s_ms;
static uint64_t s_next_job_us;          /* main only */

void TMR0_IRQHandler(void)
{
    MXC_TMR_ClearFlags(MXC_TMR0);
    s_uptime_us += 1000U;
    s_ms++;
}

static uint64_t uptime_us(void)
{
    uint64_t now;
    MXC_SYS_Crit_Enter();
    now = s_uptime_us;
    MXC_SYS_Crit_Exit();
    return now;
}

int main(void)
{
    mxc_tmr_cfg_t cfg = { TMR_PRES_1, TMR_MODE_CONTINUOUS, TMR_BIT_MODE_32, MXC_TMR_APB_CLK, 50000U, 0 };
    MXC_TMR_Init(MXC_TMR0, &cfg, false);
    NVIC_SetPriority(TMR0_IRQn, 1U);
    NVIC_EnableIRQ(TMR0_IRQn);
    MXC_TMR_EnableInt(MXC_TMR0);
    MXC_TMR_Start(MXC_TMR0);
    s_next_job_us = 250000U;
    for (;;) {
        uint64_t now = uptime_us();
        if (now >= s_next_job_us) {
            s_next_job_us += 250000U;
            console_print("[%lu ms] job, uptime %llu us\n", (unsigned long)s_ms,
                          (unsigned long long)now);
        }
    }
}
