/* Anemometer: each cup-wheel pulse runs the GPIO callback, which counts the edge and stamps its
 * time; every 3 s main works out the mean pulse interval since its last report. */
#include "riot.h"

struct anemo {
    uint32_t edges;
    uint32_t last_us;
};

static volatile struct anemo g_anemo;

static void pulse_cb(void *arg)
{
    (void)arg;
    g_anemo.last_us = ztimer_now(ZTIMER_USEC);
    g_anemo.edges++;
}

int main(void)
{
    uint32_t prev_edges = 0U;
    uint32_t prev_us = ztimer_now(ZTIMER_USEC);
    gpio_init_int(GPIO_PIN(0, 8), GPIO_IN_PU, GPIO_FALLING, pulse_cb, NULL);
    for (;;) {
        ztimer_sleep(ZTIMER_MSEC, 3000U);
        unsigned state = irq_disable();
        uint32_t edges = g_anemo.edges;
        uint32_t last_us = g_anemo.last_us;
        irq_restore(state);
        uint32_t n = edges - prev_edges;
        if (n != 0U) {
            print_wind(n, (last_us - prev_us) / n);
            prev_edges = edges;
            prev_us = last_us;
        } else {
            print_wind(0U, 0U);
        }
    }
    return 0;
}
