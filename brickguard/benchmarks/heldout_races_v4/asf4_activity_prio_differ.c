/* Hallway light: each motion-sensor edge adds to an activity level (external-interrupt callback);
 * a 10 ms timer task decays it; main keeps the light on while the level is above a threshold. */
#include "atmel_start.h"

static struct timer_task s_decay_task;
static volatile uint32_t g_activity;

static void motion_cb(void)
{
    g_activity += 400U;
}

static void decay_cb(const struct timer_task *const timer_task)
{
    (void)timer_task;
    g_activity -= g_activity >> 4;
}

int main(void)
{
    system_init();
    NVIC_SetPriority(TC3_IRQn, 2U);
    NVIC_SetPriority(EIC_IRQn, 0U);
    s_decay_task.interval = 10U;
    s_decay_task.cb = decay_cb;
    s_decay_task.mode = TIMER_TASK_REPEAT;
    timer_add_task(&TIMER_0, &s_decay_task);
    ext_irq_register(PIN_PA15, motion_cb);
    timer_start(&TIMER_0);
    for (;;) {
        light_set(g_activity > 50U);
        delay_ms(20U);
    }
}
