/* Core 1 samples a sensor in a tight loop and counts the samples; core 0 reports and resets the
 * count once a second, with its interrupts disabled around the read and reset (RP2040, pico-sdk). */
#include "pico_sdk.h"

static volatile uint32_t g_samples;
static volatile int32_t g_last_value;

extern int32_t sensor_read(void);

static void core1_entry(void)
{
    for (;;) {
        g_last_value = sensor_read();
        g_samples++;
    }
}

int main(void)
{
    stdio_init_all();
    multicore_launch_core1(core1_entry);
    for (;;) {
        sleep_ms(1000u);
        uint32_t irq_state = save_and_disable_interrupts();
        uint32_t n = g_samples;
        g_samples = 0u;
        restore_interrupts(irq_state);
        printf("%u samples/s, last %d\n", (unsigned)n, (int)g_last_value);
    }
}
