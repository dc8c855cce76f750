/* Motor driver on a PSoC 62 with the ModusToolbox HAL: a 10 kHz timer callback (priority 1)
 * reads the shunt current and cuts the PWM for the rest of the period when it exceeds the limit.
 * The limit is set in mA over the debug UART ("L2000") and kept in ADC counts
 * (5000 mA full scale = 4095 counts). */
#include "cyhal.h"

static volatile uint32_t s_limit;        /* ADC counts */
static volatile uint32_t s_trips;
static cyhal_uart_t s_uart;
static cyhal_timer_t s_timer;
static cyhal_pwm_t s_pwm;
static cyhal_adc_channel_t s_shunt;

static void pwm_cb(void *callback_arg, cyhal_timer_event_t event)
{
    uint32_t amps_counts;
    (void)callback_arg;
    (void)event;
    amps_counts = cyhal_adc_read_u16(&s_shunt) >> 4;
    if (amps_counts > s_limit) {
        (void)cyhal_pwm_set_duty_cycle(&s_pwm, 0.0f, 20000U);
        s_trips++;
    } else {
        (void)cyhal_pwm_set_duty_cycle(&s_pwm, 60.0f, 20000U);
    }
}

static uint32_t read_number(void)
{
    uint32_t v = 0U;
    uint8_t c = 0U;
    for (;;) {
        (void)cyhal_uart_getc(&s_uart, &c, 0U);
        if ((c < (uint8_t)'0') || (c > (uint8_t)'9')) {
            return v;
        }
        v = (v * 10U) + (uint32_t)(c - (uint8_t)'0');
    }
}

int main(void)
{
    const cyhal_timer_cfg_t cfg = { 0U, 99U, CYHAL_TIMER_DIR_UP, false, true, 0U };
    (void)cybsp_init();
    __enable_irq();
    (void)cyhal_uart_init(&s_uart, CYBSP_DEBUG_UART_TX, CYBSP_DEBUG_UART_RX, NC, NC, NULL, NULL);
    (void)cyhal_pwm_init(&s_pwm, P9_0, NULL);
    (void)cyhal_pwm_start(&s_pwm);
    s_limit = 819U;                      /* 1000 mA */
    (void)cyhal_timer_init(&s_timer, NC, NULL);
    (void)cyhal_timer_configure(&s_timer, &cfg);
    (void)cyhal_timer_set_frequency(&s_timer, 1000000U);
    cyhal_timer_register_callback(&s_timer, pwm_cb, NULL);
    cyhal_timer_enable_event(&s_timer, CYHAL_TIMER_IRQ_TERMINAL_COUNT, 1U, true);
    (void)cyhal_timer_start(&s_timer);

    for (;;) {
        uint8_t c = 0U;
        (void)cyhal_uart_getc(&s_uart, &c, 0U);
        if (c == (uint8_t)'L') {
            uint32_t ma = read_number();
            if (ma <= 5000U) {
                s_limit = ma;
                s_limit = (s_limit * 4095U) / 5000U;
            }
        } else if (c == (uint8_t)'?') {
            printf("limit %lu counts, %lu trips\r\n", (unsigned long)s_limit, (unsigned long)s_trips);
        }
    }
}
