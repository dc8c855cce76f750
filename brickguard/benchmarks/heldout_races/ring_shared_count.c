/* Transmit queue that keeps a fill count updated by both sides. */
#include "board.h"

#define TXQ_SIZE 32U

static volatile uint8_t txq_data[TXQ_SIZE];
static volatile uint32_t txq_in;
static volatile uint32_t txq_out;
static volatile uint32_t txq_count;

void USART1_IRQHandler(void)
{
    if ((USART1->SR & USART_SR_TXE) && txq_count > 0U) {
        USART1->DR = txq_data[txq_out];
        txq_out = (txq_out + 1U) % TXQ_SIZE;
        txq_count--;
    }
}

static void uart_send(uint8_t c)
{
    while (txq_count == TXQ_SIZE) {
    }
    txq_data[txq_in] = c;
    txq_in = (txq_in + 1U) % TXQ_SIZE;
    txq_count++;
}

int main(void)
{
    board_clock_init();
    USART1->CR1 = USART_CR1_UE;
    NVIC_EnableIRQ(USART1_IRQn);
    for (;;) {
        uart_send('A');
        uart_send('\n');
    }
}
