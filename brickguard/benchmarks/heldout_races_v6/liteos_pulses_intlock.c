/* Water meter: a reed switch on EXTI3 (a LiteOS hardware interrupt) counts pulses; flow_task
 * converts them to millilitres once a second and display_task shows the total. */
#include "los_kernel.h"

#define ML_PER_PULSE 2U

static volatile UINT32 g_pulses;        /* pulses since the last conversion */
static volatile UINT32 g_total_ml;      /* written by flow_task only */
static UINT32 s_flow_tid, s_disp_tid;

static VOID flow_pulse_hwi(VOID)
{
    EXTI->PR = 1UL << 3;
    g_pulses++;
}

static VOID *flow_task(UINTPTR arg)
{
    (void)arg;
    for (;;) {
        UINT32 p, save;
        LOS_TaskDelay(1000U);
        save = LOS_IntLock();
        p = g_pulses;
        g_pulses = 0U;
        LOS_IntRestore(save);
        g_total_ml += p * ML_PER_PULSE;
    }
    return NULL;   /* not reached */
}

static VOID *display_task(UINTPTR arg)
{
    (void)arg;
    for (;;) {
        log_printf("total %u ml\n", g_total_ml);
        LOS_TaskDelay(5000U);
    }
    return NULL;   /* not reached */
}

int main(VOID)
{
    TSK_INIT_PARAM_S t = { flow_task, 4U, 0x800U, "flow" };
    board_init();
    LOS_KernelInit();
    LOS_HwiCreate(EXTI3_IRQn, 3U, 0U, flow_pulse_hwi, 0U);
    LOS_TaskCreate(&s_flow_tid, &t);
    t.pfnTaskEntry = display_task;
    t.usTaskPrio = 10U;
    t.pcName = "disp";
    LOS_TaskCreate(&s_disp_tid, &t);
    return (int)LOS_Start();
}
