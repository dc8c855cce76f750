/* Log output on USART0 by DMA0 channel 3 (GD32F30x): main formats a line into the TX buffer and
 * starts the transfer; the full-transfer-finish interrupt marks the channel idle. */
#include <stddef.h>
#include "gd32f30x.h"

#define TX_CAP 96U

static char tx_buf[TX_CAP];
static volatile bool tx_idle = true;

void DMA0_Channel3_IRQHandler(void)
{
    if (dma_interrupt_flag_get(DMA0, DMA_CH3, DMA_INT_FLAG_FTF) != RESET) {
        dma_interrupt_flag_clear(DMA0, DMA_CH3, DMA_INT_FLAG_G);
        dma_channel_disable(DMA0, DMA_CH3);
        tx_idle = true;
    }
}

extern uint32_t log_format(char *out, size_t cap);

static void log_flush(void)
{
    uint32_t len = log_format(tx_buf, TX_CAP);
    while (!tx_idle) {
    }
    tx_idle = false;
    dma_memory_address_config(DMA0, DMA_CH3, (uint32_t)(uintptr_t)tx_buf);
    dma_transfer_number_config(DMA0, DMA_CH3, len);
    dma_channel_enable(DMA0, DMA_CH3);
}

int main(void)
{
    systick_config();
    nvic_irq_enable(DMA0_Channel3_IRQn, 3U, 0U);
    dma_interrupt_enable(DMA0, DMA_CH3, DMA_INT_FTF);
    usart_dma_transmit_config(USART0, USART_DENT_ENABLE);
    for (;;) {
        log_flush();
        delay_1ms(2U);
    }
}
