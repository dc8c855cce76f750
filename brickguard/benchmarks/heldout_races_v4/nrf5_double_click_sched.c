/* Double click: every press of button 2 is passed through the app scheduler
 * and counted in main's context; main fires the double-click action once two
 * presses have been counted and starts counting again. */
#include "nrf5_sdk.h"

static volatile uint32_t g_clicks;

static void click_evt(void *p_event_data, uint16_t event_size)
{
    (void)p_event_data;
    (void)event_size;
    g_clicks++;
}

static void button_handler(nrf_drv_gpiote_pin_t pin, nrf_gpiote_polarity_t action)
{
    (void)action;
    if (pin == BUTTON_2) {
        (void)app_sched_event_put(NULL, 0U, click_evt);
    }
}

int main(void)
{
    nrf_drv_gpiote_in_config_t cfg = GPIOTE_CONFIG_IN_SENSE_HITOLO(true);
    APP_ERROR_CHECK(nrf_drv_gpiote_init());
    APP_SCHED_INIT(0U, 8U);
    APP_ERROR_CHECK(nrf_drv_gpiote_in_init(BUTTON_2, &cfg, button_handler));
    nrf_drv_gpiote_in_event_enable(BUTTON_2, true);
    for (;;) {
        app_sched_execute();
        uint32_t clicks = g_clicks;
        if (clicks >= 2U) {
            on_double_click();
            g_clicks = 0U;
        }
        __WFE();
    }
}
