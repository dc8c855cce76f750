/* Irrigation valve scheduler on an nRF52840 with Apache Mynewt. Two callouts (open and close) and
 * an event the rain sensor's interrupt queues all run on the default event queue, which main
 * drains: they share the valve bookkeeping without a lock because the queue runs one event at a
 * time in main's task. The rain interrupt itself touches nothing but its own event. */
#include "mynewt.h"

#define RAIN_PIN 17
#define VALVE_PIN 24
#define OPEN_EVERY (3600U * OS_TICKS_PER_SEC)
#define OPEN_FOR (300U * OS_TICKS_PER_SEC)

static struct os_callout s_open_co;
static struct os_callout s_close_co;
static struct os_event s_rain_ev;
static uint32_t g_valve_open;
static uint32_t g_cycles;
static uint32_t g_skipped;
static bool g_raining;

static void close_cb(struct os_event *ev)
{
    (void)ev;
    hal_gpio_write(VALVE_PIN, 0);
    g_valve_open = 0U;
}

static void open_cb(struct os_event *ev)
{
    (void)ev;
    os_callout_reset(&s_open_co, OPEN_EVERY);
    if (g_raining) {
        g_skipped++;
        return;
    }
    g_cycles++;
    g_valve_open = 1U;
    hal_gpio_write(VALVE_PIN, 1);
    os_callout_reset(&s_close_co, OPEN_FOR);
}

static void rain_ev_cb(struct os_event *ev)
{
    (void)ev;
    g_raining = hal_gpio_read(RAIN_PIN) == 0;
    if (g_raining && g_valve_open != 0U) {
        close_cb(NULL);
    }
    console_printf("rain %d cycles %lu skipped %lu\n", g_raining, (unsigned long)g_cycles,
                   (unsigned long)g_skipped);
}

static void rain_irq(void *arg)
{
    (void)arg;
    os_eventq_put(os_eventq_dflt_get(), &s_rain_ev);
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    sysinit();
    hal_gpio_init_out(VALVE_PIN, 0);
    s_rain_ev.ev_cb = rain_ev_cb;
    os_callout_init(&s_open_co, os_eventq_dflt_get(), open_cb, NULL);
    os_callout_init(&s_close_co, os_eventq_dflt_get(), close_cb, NULL);
    hal_gpio_irq_init(RAIN_PIN, rain_irq, NULL, HAL_GPIO_TRIG_BOTH, HAL_GPIO_PULL_UP);
    hal_gpio_irq_enable(RAIN_PIN);
    os_callout_reset(&s_open_co, OPEN_EVERY);
    while (1) {
        os_eventq_run(os_eventq_dflt_get());
    }
    return 0;
}
