/* Software clock: a 1 ms repeating timer task counts ticks; main folds the pending ticks into the
 * wall clock whenever it gets round to it. */
#include "atmel_start.h"

static struct timer_task s_tick_task;
static volatile uint32_t g_ticks_pending;

static void tick_cb(const struct timer_task *const timer_task)
{
    (void)timer_task;
    g_ticks_pending++;
}

int main(void)
{
    system_init();
    s_tick_task.interval = 1U;
    s_tick_task.cb = tick_cb;
    s_tick_task.mode = TIMER_TASK_REPEAT;
    timer_add_task(&TIMER_0, &s_tick_task);
    timer_start(&TIMER_0);
    for (;;) {
        while (g_ticks_pending != 0U) {
            CRITICAL_SECTION_ENTER()
            g_ticks_pending--;
            CRITICAL_SECTION_LEAVE()
            clock_advance_ms();
        }
        delay_ms(3U);
    }
}
