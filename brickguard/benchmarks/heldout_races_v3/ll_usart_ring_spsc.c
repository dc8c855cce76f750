/* USART2 receive ring, one producer (the handler) and one consumer (main), STM32G4 LL drivers. */
#include "stm32g4_ll.h"

#define RX_SIZE 64U

static volatile uint8_t rx_buf[RX_SIZE];
static volatile uint32_t rx_head; /* written by the handler only */
static volatile uint32_t rx_tail; /* written by main only */
static volatile uint32_t rx_overruns;

void USART2_IRQHandler(void)
{
    if (LL_USART_IsActiveFlag_ORE(USART2) != 0U) {
        LL_USART_ClearFlag_ORE(USART2);
        rx_overruns++;
    }
    if (LL_USART_IsActiveFlag_RXNE(USART2) != 0U) {
        uint8_t b = LL_USART_ReceiveData8(USART2);
        uint32_t next = (rx_head + 1U) % RX_SIZE;
        if (next != rx_tail) {
            rx_buf[rx_head] = b;
            rx_head = next;
        }
    }
}

static int console_getc(void)
{
    uint32_t tail = rx_tail;
    if (tail == rx_head) {
        return -1;
    }
    uint8_t b = rx_buf[tail];
    rx_tail = (tail + 1U) % RX_SIZE;
    return b;
}

extern void shell_feed(uint8_t c);

int main(void)
{
    SystemClock_Config();
    NVIC_SetPriority(USART2_IRQn, 5U);
    LL_USART_EnableIT_RXNE(USART2);
    NVIC_EnableIRQ(USART2_IRQn);
    for (;;) {
        int c = console_getc();
        if (c >= 0) {
            shell_feed((uint8_t)c);
        }
    }
}
