/* The same driver as m7_uart, on a Cortex-M4: no data cache, no BG501 or BG502. */
#include "dma_stub.h"

static uint8_t tx_buf[20];
static uint8_t rx_buf[20];
UART_HandleTypeDef huart1;

void send_dirty(const uint8_t *msg, uint16_t n)
{
    memcpy(tx_buf, msg, n);
    (void)HAL_UART_Transmit_DMA(&huart1, tx_buf, n);
}

void start_rx(void)
{
    (void)HAL_UART_Receive_DMA(&huart1, rx_buf, 20);
}

uint8_t peek_first(void)
{
    return rx_buf[1];
}
