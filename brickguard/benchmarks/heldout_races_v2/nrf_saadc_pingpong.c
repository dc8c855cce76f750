/* SAADC waveform capture with EasyDMA into two buffers. On EVENTS_STARTED the handler points
 * RESULT.PTR at the other buffer (the next START latches it); on EVENTS_END it counts the frame
 * and starts the next one. Frame n lands in s_buf[n & 1]; while frame n + 1 is sampled (1 ms)
 * the main loop copies frame n, which takes about a microsecond, and sends the copy. */
#include "nrf_mini.h"

#define FRAME 32U

static int16_t s_buf[2][FRAME];
static volatile uint32_t s_nextPtr; /* handler only: buffer the next START latches */
static volatile uint32_t s_framesDone; /* handler only writes; main reads */

void SAADC_IRQHandler(void)
{
    if (NRF_SAADC->EVENTS_STARTED != 0U) {
        NRF_SAADC->EVENTS_STARTED = 0U;
        s_nextPtr ^= 1U;
        NRF_SAADC->RESULT.PTR = (uint32_t)(uintptr_t)s_buf[s_nextPtr];
    }
    if (NRF_SAADC->EVENTS_END != 0U) {
        NRF_SAADC->EVENTS_END = 0U;
        s_framesDone++;
        NRF_SAADC->TASKS_START = 1U;
    }
}

int main(void)
{
    int16_t copy[FRAME];
    uint32_t seen = 0U;

    board_init();
    NRF_SAADC->RESULT.PTR = (uint32_t)(uintptr_t)s_buf[0];
    NRF_SAADC->RESULT.MAXCNT = FRAME;
    NRF_SAADC->INTENSET = (1U << 0) | (1U << 1);
    NVIC_SetPriority(SAADC_IRQn, 6U);
    NVIC_EnableIRQ(SAADC_IRQn);
    NRF_SAADC->TASKS_START = 1U;

    for (;;) {
        uint32_t done = s_framesDone;
        if (done != seen) {
            seen = done;
            const int16_t *src = s_buf[(done - 1U) & 1U];
            for (uint32_t i = 0U; i < FRAME; i++) {
                copy[i] = src[i];
            }
            ble_notify(copy, sizeof(copy));
        }
    }
}
