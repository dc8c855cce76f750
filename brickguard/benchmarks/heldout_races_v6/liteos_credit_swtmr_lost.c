/* Dosing-pump rate limiter: a periodic software timer adds credit every 100 ms; pump_task spends
 * it before each stroke. No interrupt handler touches g_credit. */
#include "los_kernel.h"

#define CREDIT_MAX 500U
#define STROKE_COST 40U

static volatile UINT32 g_credit;
static volatile UINT32 g_strokes;       /* written by pump_task only */
static UINT16 s_refill_id;
static UINT32 s_pump_tid;

static VOID refill_cb(UINTPTR arg)
{
    (void)arg;
    if (g_credit + 5U <= CREDIT_MAX) {
        g_credit += 5U;
    }
}

static VOID *pump_task(UINTPTR arg)
{
    (void)arg;
    for (;;) {
        UINT32 c = g_credit;
        if (c >= STROKE_COST) {
            g_credit = c - STROKE_COST;
            valve_set(100U);
            LOS_TaskDelay(20U);
            valve_set(0U);
            g_strokes++;
        }
        LOS_TaskDelay(5U);
    }
    return NULL;   /* not reached */
}

int main(VOID)
{
    TSK_INIT_PARAM_S t = { pump_task, 6U, 0x800U, "pump" };
    board_init();
    LOS_KernelInit();
    LOS_SwtmrCreate(100U, LOS_SWTMR_MODE_PERIOD, refill_cb, &s_refill_id, 0U);
    LOS_SwtmrStart(s_refill_id);
    LOS_TaskCreate(&s_pump_tid, &t);
    return (int)LOS_Start();
}
