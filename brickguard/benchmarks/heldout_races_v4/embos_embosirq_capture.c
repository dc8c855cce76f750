/* Shaft speed logger: FTM0 channel 0 captures every tooth edge; the handler stores the period
 * since the previous edge and the edge's time. The log task reads the pair with embOS interrupts
 * disabled and records it. */
#include "RTOS.h"

struct capture {
    OS_U32 period;
    OS_U32 at;
};

static OS_TASK s_tcb_log;
static OS_U32 s_stack_log[128];
static volatile struct capture g_capture;
static OS_U32 s_prev_edge;

void FTM0_IRQHandler(void)
{
    OS_INT_Enter();
    OS_U32 now = FTM0->CONTROLS[0].CnV;
    FTM0->CONTROLS[0].CnSC &= ~0x80UL;
    g_capture.period = (now - s_prev_edge) & 0xFFFFU;
    g_capture.at = now;
    s_prev_edge = now;
    OS_INT_Leave();
}

static void log_task(void)
{
    for (;;) {
        OS_TASK_Delay(20U);
        OS_INT_IncDI();
        OS_U32 period = g_capture.period;
        OS_U32 at = g_capture.at;
        OS_INT_DecRI();
        display_period(period, at);
    }
}

int main(void)
{
    OS_Init();
    OS_InitHW();
    FTM0->MOD = 0xFFFFU;
    FTM0->CONTROLS[0].CnSC = 0x44U;
    NVIC_SetPriority(FTM0_IRQn, 10U);
    NVIC_EnableIRQ(FTM0_IRQn);
    FTM0->SC = 0x08U;
    OS_TASK_CREATE(&s_tcb_log, "Log", 50U, log_task, s_stack_log);
    OS_Start();
    return 0;
}
