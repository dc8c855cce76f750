/* Event timestamps on an nRF52840 with Apache Mynewt: TIMER1 (hal_timer, 1 MHz) fires every
 * millisecond and extends a 64-bit microsecond uptime; a logging task stamps each record with it. */
#include "mynewt.h"

#define LOG_TASK_PRIO 10
#define TICK_US 1000U

static struct hal_timer s_tick_tmr;
static volatile uint64_t g_uptime_us;
static struct os_task s_log_task;
static os_stack_t s_log_stack[256];
static struct os_sem s_log_sem;

struct record {
    uint64_t t_us;
    uint16_t mv;
};

static void tick_cb(void *arg)
{
    (void)arg;
    g_uptime_us += TICK_US;
    hal_timer_start(&s_tick_tmr, TICK_US);
}

static uint64_t uptime_now(void)
{
    return g_uptime_us;
}

static void log_task(void *arg)
{
    (void)arg;
    for (;;) {
        os_sem_pend(&s_log_sem, OS_TIMEOUT_NEVER);
        struct record r;
        r.mv = saadc_read_mv(0);
        r.t_us = uptime_now();
        flash_log_append(&r, sizeof(r));
    }
}

static void sample_irq(void *arg)
{
    (void)arg;
    os_sem_release(&s_log_sem);
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    sysinit();
    os_sem_init(&s_log_sem, 0);
    hal_timer_config(1, 1000000U);
    hal_timer_set_cb(1, &s_tick_tmr, tick_cb, NULL);
    hal_timer_start(&s_tick_tmr, TICK_US);
    hal_gpio_irq_init(5, sample_irq, NULL, HAL_GPIO_TRIG_RISING, HAL_GPIO_PULL_NONE);
    hal_gpio_irq_enable(5);
    os_task_init(&s_log_task, "log", log_task, NULL, LOG_TASK_PRIO, 0, s_log_stack, 256);
    while (1) {
        os_eventq_run(os_eventq_dflt_get());
    }
    return 0;
}
