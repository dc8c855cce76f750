/* SAADC waveform capture with EasyDMA: on EVENTS_END the handler flags the frame and restarts
 * sampling into the same buffer so that no sample period is missed; the main loop copies the
 * frame and sends it over BLE (ble_notify can take several milliseconds). */
#include "nrf_mini.h"

#define FRAME 32U

static volatile int16_t s_frame[FRAME];
static volatile bool s_frameReady;

void SAADC_IRQHandler(void)
{
    if (NRF_SAADC->EVENTS_END != 0U) {
        NRF_SAADC->EVENTS_END = 0U;
        s_frameReady = true;
        NRF_SAADC->TASKS_START = 1U; /* EasyDMA writes s_frame again from sample 0 */
    }
}

int main(void)
{
    int16_t copy[FRAME];

    board_init();
    NRF_SAADC->RESULT.PTR = (uint32_t)(uintptr_t)s_frame;
    NRF_SAADC->RESULT.MAXCNT = FRAME;
    NRF_SAADC->INTENSET = 1U << 1;
    NVIC_SetPriority(SAADC_IRQn, 6U);
    NVIC_EnableIRQ(SAADC_IRQn);
    NRF_SAADC->TASKS_START = 1U;

    for (;;) {
        if (s_frameReady) {
            s_frameReady = false;
            for (uint32_t i = 0U; i < FRAME; i++) {
                copy[i] = s_frame[i];
            }
            ble_notify(copy, sizeof(copy));
        }
    }
}
