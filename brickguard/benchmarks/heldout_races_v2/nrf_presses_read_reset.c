/* Button press counter: the nrfx GPIOTE handler (run in GPIOTE_IRQHandler) counts presses; the
 * main loop reports the presses since its last report once per RTC tick and starts again from
 * zero. */
#include "nrf_mini.h"

#define PIN_BUTTON 13U

static volatile uint32_t s_presses;

static void button_handler(nrfx_gpiote_pin_t pin, nrf_gpiote_polarity_t action)
{
    (void)pin;
    (void)action;
    s_presses++;
}

int main(void)
{
    nrfx_gpiote_in_config_t cfg = {NRF_GPIOTE_POLARITY_HITOLO, true};

    board_init();
    (void)nrfx_gpiote_init();
    (void)nrfx_gpiote_in_init(PIN_BUTTON, &cfg, button_handler);
    nrfx_gpiote_in_event_enable(PIN_BUTTON, true);

    for (;;) {
        if (NRF_RTC1->EVENTS_TICK != 0U) {
            NRF_RTC1->EVENTS_TICK = 0U;
            uint32_t n = s_presses;
            s_presses = 0U;
            log_u32(n);
        }
    }
}
