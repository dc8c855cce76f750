/* Door bell counter on an nRF52840 with Apache Mynewt: the bell button interrupts on its falling
 * edge (GPIOTE), and a callout on the default event queue reports and clears the count every
 * minute. */
#include "mynewt.h"

#define BELL_PIN 11

static volatile uint32_t g_rings;
static struct os_callout s_report_co;
static uint32_t s_minutes;

static void bell_irq(void *arg)
{
    (void)arg;
    g_rings++;
}

static void report_cb(struct os_event *ev)
{
    (void)ev;
    s_minutes++;
    uint32_t rings = g_rings;
    if (rings != 0U) {
        console_printf("minute %lu: %lu rings\n", (unsigned long)s_minutes, (unsigned long)rings);
    }
    g_rings = 0U;
    os_callout_reset(&s_report_co, 60U * OS_TICKS_PER_SEC);
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    sysinit();
    os_callout_init(&s_report_co, os_eventq_dflt_get(), report_cb, NULL);
    hal_gpio_irq_init(BELL_PIN, bell_irq, NULL, HAL_GPIO_TRIG_FALLING, HAL_GPIO_PULL_UP);
    hal_gpio_irq_enable(BELL_PIN);
    os_callout_reset(&s_report_co, 60U * OS_TICKS_PER_SEC);
    while (1) {
        os_eventq_run(os_eventq_dflt_get());
    }
    return 0;
}
