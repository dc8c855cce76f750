/* Two tasks share a filter configuration: the command task replaces it, the filter task copies
 * it before every block; both lock out task switches with a region. The PIT0 interrupt only
 * counts its ticks, which the filter task reads. */
#include "RTOS.h"

struct filter_cfg {
    OS_U32 taps;
    OS_I32 gain;
    OS_I32 offset;
};

static OS_TASK s_tcb_cmd;
static OS_TASK s_tcb_filter;
static OS_U32 s_stack_cmd[128];
static OS_U32 s_stack_filter[192];
static struct filter_cfg g_cfg = { 8U, 256, 0 };
static volatile OS_U32 g_pit_ticks;

void PIT0_IRQHandler(void)
{
    OS_INT_Enter();
    PIT_CH0->TFLG = 1U;
    g_pit_ticks++;
    OS_INT_Leave();
}

static void cmd_task(void)
{
    for (;;) {
        OS_TASK_Delay(500U);
        OS_TASK_EnterRegion();
        g_cfg.taps = (g_cfg.taps == 8U) ? 16U : 8U;
        g_cfg.gain = (OS_I32)(g_cfg.taps * 32U);
        OS_TASK_LeaveRegion();
    }
}

static void filter_task(void)
{
    for (;;) {
        OS_TASK_EnterRegion();
        struct filter_cfg cfg = g_cfg;
        OS_TASK_LeaveRegion();
        valve_set((OS_U32)(cfg.gain / (OS_I32)cfg.taps) + g_pit_ticks % 2U);
        OS_TASK_Delay(10U);
    }
}

int main(void)
{
    OS_Init();
    OS_InitHW();
    PIT_CH0->LDVAL = 59999U;
    PIT_CH0->TCTRL = 3U;
    NVIC_SetPriority(PIT0_IRQn, 12U);
    NVIC_EnableIRQ(PIT0_IRQn);
    OS_TASK_CREATE(&s_tcb_cmd, "Cmd", 60U, cmd_task, s_stack_cmd);
    OS_TASK_CREATE(&s_tcb_filter, "Filter", 80U, filter_task, s_stack_filter);
    OS_Start();
    return 0;
}
