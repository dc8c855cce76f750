/* Sensor warm-up wait (RP2040, pico-sdk): hardware alarm 1 fires once after 20 ms and its handler
 * raises a flag that main waits for before the first measurement. */
#include "pico_sdk.h"

#define WARMUP_US 20000u

static volatile bool g_warm;

static void alarm1_isr(void)
{
    hw_clear_bits(&timer_hw->intr, 1u << 1);
    g_warm = true;
}

extern void sensor_power_on(void);
extern int32_t sensor_measure(void);

int main(void)
{
    stdio_init_all();
    hw_set_bits(&timer_hw->inte, 1u << 1);
    irq_set_exclusive_handler(TIMER_IRQ_1, alarm1_isr);
    irq_set_enabled(TIMER_IRQ_1, true);
    for (;;) {
        g_warm = false;
        sensor_power_on();
        timer_hw->alarm[1] = timer_hw->timerawl + WARMUP_US;
        while (!g_warm) {
            tight_loop_contents();
        }
        printf("%d\n", (int)sensor_measure());
        sleep_ms(1000u);
    }
}
