/* A hex formatter with a static buffer, used by the main loop's log and by the error handler. */
#include "board.h"

static const char *to_hex(uint32_t v)
{
    static char hexbuf[9];
    for (int i = 7; i >= 0; i--) {
        hexbuf[i] = "0123456789abcdef"[v & 0xFU];
        v >>= 4;
    }
    hexbuf[8] = '\0';
    return hexbuf;
}

static void uart_puts(const char *s)
{
    while (*s != '\0') {
        while ((USART2->SR & USART_SR_TXE) == 0U) {
        }
        USART2->DR = (uint8_t)*s++;
    }
}

static volatile uint32_t last_fault;

void USART1_IRQHandler(void)
{
    uint32_t sr = USART1->SR;
    (void)USART1->DR;
    if (sr & 0x8U) {
        const char *code = to_hex(sr);
        last_fault = (uint32_t)(uint8_t)code[7];
    }
}

int main(void)
{
    uint32_t n = 0U;

    board_clock_init();
    NVIC_EnableIRQ(USART1_IRQn);
    for (;;) {
        uart_puts(to_hex(n++));
        uart_puts("\r\n");
    }
}
