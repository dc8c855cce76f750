/* Compressor duty budget on an STM32F407 with RT-Thread: a periodic 10 ms timer adds run budget;
 * the control thread spends it while the compressor runs, adjusting the budget inside a
 * scheduler lock (rt_enter_critical/rt_exit_critical). The timer is a soft timer. */
#include "rtthread.h"

#define BUDGET_MAX 6000

static volatile rt_int32_t g_budget;
static rt_timer_t s_budget_timer;
static rt_uint32_t s_runs;

static void budget_tick(void *parameter)
{
    (void)parameter;
    if (g_budget < BUDGET_MAX) {
        g_budget += 10;
    }
}

static void control_entry(void *parameter)
{
    (void)parameter;
    for (;;) {
        rt_thread_mdelay(100);
        bool run = g_budget > 500;
        charger_enable(run);
        if (run) {
            s_runs++;
            rt_enter_critical();
            g_budget -= 150;
            rt_exit_critical();
        }
    }
}

int main(void)
{
    s_budget_timer = rt_timer_create("budget", budget_tick, RT_NULL, 10,
                                     RT_TIMER_FLAG_PERIODIC | RT_TIMER_FLAG_SOFT_TIMER);
    rt_timer_start(s_budget_timer);
    rt_thread_t t = rt_thread_create("ctrl", control_entry, RT_NULL, 1024, 12, 10);
    rt_thread_startup(t);
    return 0;
}
