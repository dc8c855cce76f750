/* Button press counter: the nrfx GPIOTE handler (run in GPIOTE_IRQHandler) counts presses; the
 * main loop takes the count and zeroes it in one exclusive load/store pair, retried until the
 * store succeeds (an exception entry or return clears the exclusive monitor, so a press counted
 * between the LDREX and the STREX makes the STREX fail and the loop read it again). */
#include "nrf_mini.h"

#define PIN_BUTTON 13U

static volatile uint32_t s_presses;

static void button_handler(nrfx_gpiote_pin_t pin, nrf_gpiote_polarity_t action)
{
    (void)pin;
    (void)action;
    s_presses++;
}

static uint32_t take_presses(void)
{
    uint32_t n;
    do {
        n = __LDREXW(&s_presses);
    } while (__STREXW(0U, &s_presses) != 0U);
    return n;
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
            log_u32(take_presses());
        }
    }
}
