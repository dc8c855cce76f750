/* Error flags: the interrupt is enabled first, then the main loop clears one flag with a
 * read-modify-write while the handler may set another. */
#include "board.h"

#define ERR_OVERRUN 0x1U
#define ERR_FRAMING 0x2U

static volatile uint32_t uart_errors;

void USART1_IRQHandler(void)
{
    uint32_t sr = USART1->SR;
    if (sr & 0x8U) {
        uart_errors |= ERR_OVERRUN;
    }
    if (sr & 0x2U) {
        uart_errors |= ERR_FRAMING;
    }
    (void)USART1->DR;
}

int main(void)
{
    board_clock_init();
    uart_errors = 0U;
    USART1->CR1 = USART_CR1_UE | USART_CR1_RXNEIE;
    NVIC_EnableIRQ(USART1_IRQn);
    for (;;) {
        if (uart_errors & ERR_FRAMING) {
            led_toggle();
            uart_errors &= ~ERR_FRAMING;
        }
        if (uart_errors & ERR_OVERRUN) {
            process_byte(0xEEU);
            uart_errors &= ~ERR_OVERRUN;
        }
    }
}
