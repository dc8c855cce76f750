/* Activity meter (RP2040, pico-sdk): every motion-sensor edge adds to a level that a 100 ms alarm
 * on hardware timer 0 halves. Both interrupts keep the default priority. */
#include "pico_sdk.h"

#define MOTION_PIN 7u
#define ALARM_PERIOD_US 100000u

static volatile uint32_t g_activity;

static void on_motion(uint gpio, uint32_t events)
{
    (void)gpio;
    (void)events;
    g_activity += 16u;
}

static void alarm0_isr(void)
{
    hw_clear_bits(&timer_hw->intr, 1u << 0);
    timer_hw->alarm[0] = timer_hw->timerawl + ALARM_PERIOD_US;
    g_activity = g_activity / 2u;
}

extern void led_level(uint32_t level);

int main(void)
{
    stdio_init_all();
    gpio_init(MOTION_PIN);
    gpio_pull_up(MOTION_PIN);
    gpio_set_irq_enabled_with_callback(MOTION_PIN, GPIO_IRQ_EDGE_RISE, true, on_motion);
    irq_set_priority(IO_IRQ_BANK0, PICO_DEFAULT_IRQ_PRIORITY);
    hw_set_bits(&timer_hw->inte, 1u << 0);
    irq_set_exclusive_handler(TIMER_IRQ_0, alarm0_isr);
    irq_set_priority(TIMER_IRQ_0, PICO_DEFAULT_IRQ_PRIORITY);
    irq_set_enabled(TIMER_IRQ_0, true);
    timer_hw->alarm[0] = timer_hw->timerawl + ALARM_PERIOD_US;
    for (;;) {
        led_level(g_activity);
        sleep_ms(20u);
    }
}
