/* Job scheduler: TIMER1's match interrupt marks scheduled jobs as due in a bit mask every tick;
 * main runs the due jobs and clears their bits with the
 * timer interrupt masked at the NVIC. */
#include "chip_lpc17xx.h"

static volatile uint32_t g_due;
static volatile uint32_t g_scheduled;
static uint32_t s_tick;

void TIMER1_IRQHandler(void)
{
    if (Chip_TIMER_MatchPending(LPC_TIMER1, 0)) {
        Chip_TIMER_ClearMatch(LPC_TIMER1, 0);
        s_tick++;
        g_due |= g_scheduled & ((s_tick & 1U) != 0U ? 0x0FU : 0xF0U);
    }
}

int main(void)
{
    SystemCoreClockUpdate();
    Chip_TIMER_Init(LPC_TIMER1);
    Chip_TIMER_SetMatch(LPC_TIMER1, 0, 24000U);
    Chip_TIMER_ResetOnMatchEnable(LPC_TIMER1, 0);
    Chip_TIMER_MatchEnableInt(LPC_TIMER1, 0);
    g_scheduled = 0x33U;
    NVIC_SetPriority(TIMER1_IRQn, 4U);
    NVIC_EnableIRQ(TIMER1_IRQn);
    Chip_TIMER_Enable(LPC_TIMER1);
    for (;;) {
        uint32_t due = g_due;
        if (due != 0U) {
            timer_jobs_run(due);
            NVIC_DisableIRQ(TIMER1_IRQn);
            g_due &= ~due;
            NVIC_EnableIRQ(TIMER1_IRQn);
        }
    }
}
