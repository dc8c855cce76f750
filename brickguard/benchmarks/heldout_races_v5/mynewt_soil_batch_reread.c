/* Soil moisture logger on an nRF52840 with Apache Mynewt. TIMER1 (hal_timer) samples the probe
 * every 250 ms into a batch; a callout on the default event queue flushes the batch to flash every
 * 10 s; a button marks the log; the probe's supply is switched by a small state machine that the
 * flush callout steps. Flash errors back off and retry. */
#include "mynewt.h"

#define BATCH_MAX 64U
#define SAMPLE_TICKS 250000U
#define BUTTON_PIN 13
#define PROBE_PWR_PIN 22

enum probe_state { PROBE_OFF, PROBE_WARMING, PROBE_ON, PROBE_FAULT };

struct log_rec {
    uint32_t t;
    uint16_t count;
    uint16_t flags;
    uint16_t mv[BATCH_MAX];
};

static struct hal_timer s_sample_tmr;
static volatile uint16_t s_batch[BATCH_MAX];
static volatile uint32_t g_batch_len;
static volatile uint32_t g_dropped;
static volatile bool g_mark_requested;
static struct os_callout s_flush_co;
static struct log_rec s_rec;
static enum probe_state s_probe = PROBE_OFF;
static uint32_t s_flash_errors;
static uint32_t s_backoff_ticks = 10U * OS_TICKS_PER_SEC;

static void sample_cb(void *arg)
{
    (void)arg;
    hal_timer_start(&s_sample_tmr, SAMPLE_TICKS);
    if (s_probe != PROBE_ON) {
        return;
    }
    uint32_t n = g_batch_len;
    if (n >= BATCH_MAX) {
        g_dropped++;
        return;
    }
    s_batch[n] = saadc_read_mv(1);
    g_batch_len = n + 1U;
}

static void button_irq(void *arg)
{
    (void)arg;
    g_mark_requested = true;
}

static void probe_step(void)
{
    switch (s_probe) {
    case PROBE_OFF:
        hal_gpio_write(PROBE_PWR_PIN, 1);
        s_probe = PROBE_WARMING;
        break;
    case PROBE_WARMING:
        s_probe = (saadc_read_mv(1) > 50U) ? PROBE_ON : PROBE_FAULT;
        break;
    case PROBE_ON:
        break;
    case PROBE_FAULT:
        hal_gpio_write(PROBE_PWR_PIN, 0);
        s_probe = PROBE_OFF;
        break;
    }
}

static void flush_cb(struct os_event *ev)
{
    (void)ev;
    probe_step();
    s_rec.t = os_time_get();
    s_rec.flags = 0U;
    if (g_mark_requested) {
        g_mark_requested = false;
        s_rec.flags |= 1U;
    }
    if (g_batch_len != 0U) {
        for (uint32_t i = 0U; i < g_batch_len; i++) {
            s_rec.mv[i] = s_batch[i];
        }
        s_rec.count = (uint16_t)g_batch_len;
        g_batch_len = 0U;
    } else {
        s_rec.count = 0U;
    }
    if (flash_log_append(&s_rec, sizeof(s_rec)) != 0) {
        s_flash_errors++;
        s_backoff_ticks = (s_backoff_ticks < 60U * OS_TICKS_PER_SEC) ? s_backoff_ticks * 2U : s_backoff_ticks;
        console_printf("flash error %lu, retry in %lu ticks\n", (unsigned long)s_flash_errors,
                       (unsigned long)s_backoff_ticks);
    } else {
        s_backoff_ticks = 10U * OS_TICKS_PER_SEC;
    }
    if (g_dropped != 0U) {
        console_printf("dropped %lu samples so far\n", (unsigned long)g_dropped);
    }
    os_callout_reset(&s_flush_co, s_backoff_ticks);
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    sysinit();
    hal_gpio_init_out(PROBE_PWR_PIN, 0);
    os_callout_init(&s_flush_co, os_eventq_dflt_get(), flush_cb, NULL);
    hal_gpio_irq_init(BUTTON_PIN, button_irq, NULL, HAL_GPIO_TRIG_FALLING, HAL_GPIO_PULL_UP);
    hal_gpio_irq_enable(BUTTON_PIN);
    hal_timer_config(1, 1000000U);
    hal_timer_set_cb(1, &s_sample_tmr, sample_cb, NULL);
    hal_timer_start(&s_sample_tmr, SAMPLE_TICKS);
    os_callout_reset(&s_flush_co, s_backoff_ticks);
    while (1) {
        os_eventq_run(os_eventq_dflt_get());
    }
    return 0;
}
