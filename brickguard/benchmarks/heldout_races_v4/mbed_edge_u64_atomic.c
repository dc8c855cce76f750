/* Pulse interval: the GPIO interrupt stamps every rising edge with the 64-bit microsecond ticker;
 * main reports the time from the previous edge it saw to the latest. */
#include "mbed_c.h"

static gpio_irq_t s_pulse;
static volatile uint64_t g_edge_us;

static void pulse_irq(uintptr_t context, gpio_irq_event event)
{
    (void)context;
    if (event == IRQ_RISE) {
        g_edge_us = ticker_read_us(get_us_ticker_data());
    }
}

static uint64_t last_edge(void)
{
    return core_util_atomic_load_u64(&g_edge_us);
}

int main(void)
{
    (void)gpio_irq_init(&s_pulse, PA_0, pulse_irq, 0U);
    gpio_irq_set(&s_pulse, IRQ_RISE, 1U);
    gpio_irq_enable(&s_pulse);
    uint64_t prev = last_edge();
    for (;;) {
        wait_us(200000);
        uint64_t now = last_edge();
        if (now != prev) {
            report_interval((uint32_t)(now - prev));
            prev = now;
        }
    }
}
