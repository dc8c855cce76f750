/* UART driver state set up by init before the receive interrupt is enabled. */
#include "board.h"

struct uart_state {
    uint32_t baud;
    uint32_t flags;
    uint32_t rx_bytes;
    uint64_t rx_total;
};

static struct uart_state uart;
static volatile uint32_t rx_seen;

void USART1_IRQHandler(void)
{
    (void)USART1->DR;
    uart.rx_bytes++;
    uart.rx_total++;
    uart.flags |= 0x1U;
    rx_seen = 1U;
}

static void uart_init(uint32_t baud)
{
    uart.baud = baud;
    uart.flags = 0U;
    uart.flags |= 0x100U;
    uart.rx_bytes = 0U;
    uart.rx_total = 0U;
    USART1->BRR = 84000000U / baud;
    USART1->CR1 = USART_CR1_UE | USART_CR1_RXNEIE;
    NVIC_EnableIRQ(USART1_IRQn);
}

int main(void)
{
    board_clock_init();
    uart_init(115200U);
    for (;;) {
        if (rx_seen != 0U) {
            rx_seen = 0U;
            led_toggle();
        }
    }
}
