/* Tank level model: one software timer fills, another drains; both callbacks run one at a time in
 * LiteOS's single software-timer task. report_task only reads the level. */
#include "los_kernel.h"

static volatile UINT32 g_level_ml = 1000U;
static volatile UINT32 g_overflows;
static UINT16 s_fill_id, s_drain_id;
static UINT32 s_report_tid;

static VOID fill_cb(UINTPTR arg)
{
    (void)arg;
    g_level_ml += 30U;
    if (g_level_ml > 5000U) {
        g_level_ml = 5000U;
        g_overflows++;
    }
}

static VOID drain_cb(UINTPTR arg)
{
    (void)arg;
    if (g_level_ml >= 45U) {
        g_level_ml -= 45U;
    }
}

static VOID *report_task(UINTPTR arg)
{
    (void)arg;
    for (;;) {
        log_printf("level %u ml, overflows %u\n", g_level_ml, g_overflows);
        LOS_TaskDelay(1000U);
    }
    return NULL;   /* not reached */
}

int main(VOID)
{
    TSK_INIT_PARAM_S t = { report_task, 8U, 0x800U, "report" };
    board_init();
    LOS_KernelInit();
    LOS_SwtmrCreate(100U, LOS_SWTMR_MODE_PERIOD, fill_cb, &s_fill_id, 0U);
    LOS_SwtmrCreate(150U, LOS_SWTMR_MODE_PERIOD, drain_cb, &s_drain_id, 0U);
    LOS_SwtmrStart(s_fill_id);
    LOS_SwtmrStart(s_drain_id);
    LOS_TaskCreate(&s_report_tid, &t);
    return (int)LOS_Start();
}
