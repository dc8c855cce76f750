/* Bench supply monitor on a PSoC 62 with the ModusToolbox HAL: a 1 kHz timer callback (TCPWM
 * interrupt, priority 2) samples the front end and auto-ranges it (range 0: x1, 1: x10, 2: x100
 * attenuation, switched by two GPIOs). main reads the latest sample with its range every 10 ms and
 * trips the output relay above 30 V. */
#include "cyhal.h"

typedef struct {
    uint32_t raw;       /* ADC counts */
    uint32_t range;     /* attenuator setting the counts were taken with */
} meas_t;

static volatile meas_t s_meas;
static volatile uint32_t s_range;
static volatile uint32_t s_samples;
static cyhal_timer_t s_timer;
static cyhal_adc_channel_t s_adc_chan;
static const uint32_t k_uv_per_lsb[3] = { 50U, 500U, 5000U };

static void set_attenuator(uint32_t r)
{
    cyhal_gpio_write(P9_0, (r & 1U) != 0U);
    cyhal_gpio_write(P6_2, (r & 2U) != 0U);
}

static void sample_cb(void *callback_arg, cyhal_timer_event_t event)
{
    uint32_t raw;
    (void)callback_arg;
    (void)event;
    raw = cyhal_adc_read_u16(&s_adc_chan);
    s_meas.raw = raw;
    s_meas.range = s_range;
    s_samples++;
    if ((raw > 60000U) && (s_range < 2U)) {
        s_range++;
        set_attenuator(s_range);
    } else if ((raw < 5000U) && (s_range > 0U)) {
        s_range--;
        set_attenuator(s_range);
    }
}

int main(void)
{
    const cyhal_timer_cfg_t cfg = { 0U, 999U, CYHAL_TIMER_DIR_UP, false, true, 0U };
    (void)cybsp_init();
    __enable_irq();
    (void)cyhal_gpio_init(P9_0, CYHAL_GPIO_DIR_OUTPUT, CYHAL_GPIO_DRIVE_STRONG, false);
    (void)cyhal_gpio_init(P6_2, CYHAL_GPIO_DIR_OUTPUT, CYHAL_GPIO_DRIVE_STRONG, false);
    (void)cyhal_gpio_init(P13_7, CYHAL_GPIO_DIR_OUTPUT, CYHAL_GPIO_DRIVE_STRONG, true);
    (void)cyhal_timer_init(&s_timer, NC, NULL);
    (void)cyhal_timer_configure(&s_timer, &cfg);
    (void)cyhal_timer_set_frequency(&s_timer, 1000000U);
    cyhal_timer_register_callback(&s_timer, sample_cb, NULL);
    cyhal_timer_enable_event(&s_timer, CYHAL_TIMER_IRQ_TERMINAL_COUNT, 2U, true);
    (void)cyhal_timer_start(&s_timer);

    for (;;) {
        meas_t m;
        uint32_t uv;
        m.raw = s_meas.raw;
        m.range = s_meas.range;
        uv = m.raw * k_uv_per_lsb[m.range];
        if (uv > 30000000U) {
            cyhal_gpio_write(P13_7, false);
            printf("TRIP %lu uV after %lu samples\r\n", (unsigned long)uv, (unsigned long)s_samples);
        }
        cyhal_system_delay_ms(10U);
    }
}
