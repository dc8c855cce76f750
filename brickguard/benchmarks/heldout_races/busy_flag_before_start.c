/* Transmit-complete flag: the main loop marks the channel busy, then starts the transfer whose
 * completion interrupt clears the flag. */
#include "board.h"

static volatile uint32_t tx_busy;
static volatile uint8_t tx_frame[16];

void DMA1_Stream5_IRQHandler(void)
{
    tx_busy = 0U;
}

static void dma_start(const volatile uint8_t *src, uint32_t len)
{
    (void)src;
    (void)len;
    TIM3->CR1 = 1U;
}

int main(void)
{
    board_clock_init();
    NVIC_EnableIRQ(DMA1_Stream5_IRQn);
    for (;;) {
        while (tx_busy != 0U) {
        }
        tx_frame[0] = 0x55U;
        tx_busy = 1U;
        dma_start(tx_frame, sizeof tx_frame);
    }
}
