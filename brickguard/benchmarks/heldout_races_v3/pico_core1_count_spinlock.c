/* Core 1 samples a sensor in a tight loop and counts the samples; core 0 reports and resets the
 * count once a second. Both cores take the same hardware spin lock (RP2040, pico-sdk). */
#include "pico_sdk.h"

static volatile uint32_t g_samples;
static volatile int32_t g_last_value;
static spin_lock_t *g_count_lock;

extern int32_t sensor_read(void);

static void core1_entry(void)
{
    for (;;) {
        int32_t v = sensor_read();
        uint32_t save = spin_lock_blocking(g_count_lock);
        g_last_value = v;
        g_samples++;
        spin_unlock(g_count_lock, save);
    }
}

int main(void)
{
    stdio_init_all();
    g_count_lock = spin_lock_init((uint)spin_lock_claim_unused(true));
    multicore_launch_core1(core1_entry);
    for (;;) {
        sleep_ms(1000u);
        uint32_t save = spin_lock_blocking(g_count_lock);
        uint32_t n = g_samples;
        int32_t last = g_last_value;
        g_samples = 0u;
        spin_unlock(g_count_lock, save);
        printf("%u samples/s, last %d\n", (unsigned)n, (int)last);
    }
}
