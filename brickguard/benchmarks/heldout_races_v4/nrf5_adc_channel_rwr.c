/* Two-channel monitor: button 1 toggles which ADC channel (battery or temperature) the monitor
 * measures; main measures the selected channel and files the result under that channel. */
#include "nrf5_sdk.h"

#define CH_BATTERY 0U
#define CH_TEMP 1U

static volatile uint32_t g_channel = CH_BATTERY;
static uint32_t s_readings[2];

static void button_handler(nrf_drv_gpiote_pin_t pin, nrf_gpiote_polarity_t action)
{
    (void)action;
    if (pin == BUTTON_1) {
        g_channel = (g_channel == CH_BATTERY) ? CH_TEMP : CH_BATTERY;
    }
}

int main(void)
{
    nrf_drv_gpiote_in_config_t cfg = GPIOTE_CONFIG_IN_SENSE_HITOLO(false);
    APP_ERROR_CHECK(nrf_drv_gpiote_init());
    APP_ERROR_CHECK(nrf_drv_gpiote_in_init(BUTTON_1, &cfg, button_handler));
    nrf_drv_gpiote_in_event_enable(BUTTON_1, true);
    for (;;) {
        adc_start_channel(g_channel);
        uint32_t raw = adc_wait_result();
        s_readings[g_channel] = raw;
        __WFE();
    }
}
