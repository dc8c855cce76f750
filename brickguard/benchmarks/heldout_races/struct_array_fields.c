/* Two UART ports in an array: the handler updates each port's status word, the main loop
 * fills each port's transmit buffer and length. */
#include "board.h"

struct port {
    volatile uint32_t status;
    uint32_t tx_len;
    uint8_t tx_buf[32];
};

static struct port ports[2];

void USART1_IRQHandler(void)
{
    uint32_t i = (USART1->SR >> 16) & 1U;
    ports[i].status = USART1->SR;
}

int main(void)
{
    board_clock_init();
    NVIC_EnableIRQ(USART1_IRQn);
    for (;;) {
        for (uint32_t i = 0U; i < 2U; i++) {
            if ((ports[i].status & USART_SR_TXE) != 0U) {
                ports[i].tx_buf[ports[i].tx_len % 32U] = (uint8_t)'x';
                ports[i].tx_len = ports[i].tx_len + 1U;
            }
        }
    }
}
