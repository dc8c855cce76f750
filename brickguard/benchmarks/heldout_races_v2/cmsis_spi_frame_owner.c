/* Bare CMSIS: the DMA0 completion handler copies each 8-byte SPI frame out of the DMA buffer into
 * g_frame only while the main loop does not own it (g_frameFull == false) and drops the frame
 * otherwise; the main loop copies the frame, then gives g_frame back by clearing the flag. */
#include "cmsis_dev.h"

#define FRAME_LEN 8U

static volatile uint8_t g_dmaBuf[FRAME_LEN]; /* written by the DMA engine */
static volatile uint8_t g_frame[FRAME_LEN];
static volatile bool g_frameFull;
static volatile uint32_t g_dropped; /* handler only writes */

void DMA0_IRQHandler(void)
{
    ACME_DMA0->STATUS = DMA_STATUS_DONE;
    if (!g_frameFull) {
        for (uint32_t i = 0U; i < FRAME_LEN; i++) {
            g_frame[i] = g_dmaBuf[i];
        }
        g_frameFull = true;
    } else {
        g_dropped++;
    }
    ACME_DMA0->CTRL = DMA_CTRL_START; /* next frame into g_dmaBuf */
}

int main(void)
{
    uint8_t out[FRAME_LEN];

    system_init();
    ACME_DMA0->DST = (uint32_t)(uintptr_t)g_dmaBuf;
    ACME_DMA0->LEN = FRAME_LEN;
    NVIC_EnableIRQ(DMA0_IRQn);
    ACME_DMA0->CTRL = DMA_CTRL_START;

    for (;;) {
        if (g_frameFull) {
            for (uint32_t i = 0U; i < FRAME_LEN; i++) {
                out[i] = g_frame[i];
            }
            g_frameFull = false;
            radio_send(out, FRAME_LEN);
        }
    }
}
