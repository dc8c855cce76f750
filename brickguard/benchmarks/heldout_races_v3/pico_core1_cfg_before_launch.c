/* Core 1 runs the filter with a configuration core 0 fills in; samples go to core 1 and results
 * come back through the inter-core FIFOs (RP2040, pico-sdk). */
#include "pico_sdk.h"

struct filter_cfg {
    int32_t gain_q8;
    int32_t offset;
    uint32_t decimate;
};

static struct filter_cfg g_cfg;

static void core1_entry(void)
{
    const int32_t gain = g_cfg.gain_q8;
    const int32_t offset = g_cfg.offset;
    const uint32_t decimate = g_cfg.decimate;
    uint32_t k = 0u;
    for (;;) {
        int32_t x = (int32_t)multicore_fifo_pop_blocking();
        if (++k % decimate == 0u) {
            multicore_fifo_push_blocking((uint32_t)(((x + offset) * gain) >> 8));
        }
    }
}

extern int32_t adc_sample(void);

int main(void)
{
    stdio_init_all();
    g_cfg.gain_q8 = 384;
    g_cfg.offset = -2048;
    g_cfg.decimate = 4u;
    multicore_launch_core1(core1_entry);
    for (;;) {
        multicore_fifo_push_blocking((uint32_t)adc_sample());
        while (multicore_fifo_rvalid()) {
            printf("%d\n", (int)multicore_fifo_pop_blocking());
        }
        sleep_us(250u);
    }
}
