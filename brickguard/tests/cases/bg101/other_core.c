/* A function launched on another core (pico-sdk's multicore_launch_core1) runs in parallel with
   main from the launch on: masking interrupts on this core does not hold it off, only a
   cross-core lock (a hardware spin lock) taken on both sides does; before the launch it cannot
   run at all. Late writes: state the other core reads once at its start, written after the
   launch. */
#include "cmsis_stub.h"

typedef volatile uint32_t spin_lock_t;
void multicore_launch_core1(void (*entry)(void));
uint32_t spin_lock_blocking(spin_lock_t *lock);
void spin_unlock(spin_lock_t *lock, uint32_t saved);
int32_t sensor_read(void);
void report(uint32_t n, uint32_t gain);

static spin_lock_t *lock;
volatile uint32_t samples, locked_samples, boot_count;
struct cfg { uint32_t gain; uint32_t decimate; };
static struct cfg early_cfg, late_cfg;

static void core1_entry(void)
{
    uint32_t gain = early_cfg.gain + late_cfg.gain;
    for (;;) {
        (void)sensor_read();
        samples++;
        uint32_t s = spin_lock_blocking(lock);
        locked_samples++;
        spin_unlock(lock, s);
        boot_count++;
        report(gain, late_cfg.decimate);
    }
}

int main(void)
{
    boot_count = 0u;                 /* before the launch: core 1 is not running yet */
    early_cfg.gain = 3u;
    multicore_launch_core1(core1_entry);
    late_cfg.gain = 5u;              /* expect: BG101 `late_cfg.gain` */
    for (;;) {
        __disable_irq();
        uint32_t n = samples;
        samples = 0u;                /* expect: BG101 */
        __enable_irq();
        uint32_t s = spin_lock_blocking(lock);
        uint32_t m = locked_samples;
        locked_samples = 0u;
        spin_unlock(lock, s);
        report(n, m);
    }
}
