/* Log sink chosen at run time: the nrfx GPIOTE handler (run by the driver in GPIOTE_IRQHandler)
 * attaches the USB sink when the cable is plugged in and detaches it when it is pulled; the main
 * loop writes its log lines to the current sink, if any. */
#include "nrf_mini.h"

#define PIN_VBUS 12U

typedef struct {
    void (*write)(const void *data, size_t len);
} log_sink_t;

static const log_sink_t s_usbSink = {ble_notify};
static const log_sink_t *volatile s_sink;

static void vbus_handler(nrfx_gpiote_pin_t pin, nrf_gpiote_polarity_t action)
{
    (void)pin;
    if (action == NRF_GPIOTE_POLARITY_LOTOHI) {
        s_sink = &s_usbSink;
    } else {
        s_sink = NULL;
    }
}

int main(void)
{
    static const char line[] = "tick\n";
    nrfx_gpiote_in_config_t cfg = {NRF_GPIOTE_POLARITY_LOTOHI, true};

    board_init();
    (void)nrfx_gpiote_init();
    (void)nrfx_gpiote_in_init(PIN_VBUS, &cfg, vbus_handler);
    nrfx_gpiote_in_event_enable(PIN_VBUS, true);

    for (;;) {
        if (s_sink != NULL) {
            s_sink->write(line, sizeof(line) - 1U);
        }
    }
}
