/* UART DMA on a Cortex-M7: cleans before transmits, invalidates before reading received data. */
#include "dma_stub.h"

static uint8_t tx_buf[64] __attribute__((aligned(32)));
static uint8_t log_buf[32] __attribute__((aligned(32)));
static uint8_t rx_buf[64] __attribute__((aligned(32)));
UART_HandleTypeDef huart1;

void send_clean(const uint8_t *msg, uint16_t n)
{
    memcpy(tx_buf, msg, n);
    SCB_CleanDCache_by_Addr(tx_buf, (int32_t)sizeof tx_buf);
    (void)HAL_UART_Transmit_DMA(&huart1, tx_buf, n);
}

void send_dirty(const uint8_t *msg, uint16_t n)
{
    memcpy(tx_buf, msg, n);
    (void)HAL_UART_Transmit_DMA(&huart1, tx_buf, n);     /* expect: BG501 */
}

void send_wrong_buffer(void)
{
    SCB_CleanDCache_by_Addr(log_buf, 32);
    (void)HAL_UART_Transmit_DMA(&huart1, &tx_buf[0], 8);  /* expect: BG501 */
}

void send_clean_too_late(void)
{
    (void)HAL_UART_Transmit_DMA(&huart1, log_buf, 32);    /* expect: BG501 */
    SCB_CleanDCache_by_Addr(log_buf, 32);
}

void send_after_whole_clean(void)
{
    SCB_CleanDCache();
    (void)HAL_UART_Transmit_DMA(&huart1, log_buf, 32);
}

void forward(const uint8_t *p, uint16_t n)
{
    (void)HAL_UART_Transmit_DMA(&huart1, p, n);   /* the caller's buffer: not followed */
}

void start_rx(void)
{
    SCB_CleanInvalidateDCache_by_Addr(rx_buf, 64);
    (void)HAL_UART_Receive_DMA(&huart1, rx_buf, 64);
}

void HAL_UART_RxCpltCallback(UART_HandleTypeDef *h)
{
    (void)h;
    SCB_InvalidateDCache_by_Addr(rx_buf, 64);
    consume(rx_buf[0]);
}

uint8_t peek_first(void)
{
    return rx_buf[1];                                     /* expect: BG501 */
}

void drain(void)
{
    SCB_InvalidateDCache();
    consume(rx_buf[2]);
}
