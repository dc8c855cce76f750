/* Single-producer single-consumer byte ring: the handler owns head, the main loop owns tail. */
#include "board.h"

#define RX_SIZE 128U
#define RX_MASK (RX_SIZE - 1U)

static volatile uint8_t rx_buf[RX_SIZE];
static volatile uint32_t rx_head;
static volatile uint32_t rx_tail;
static volatile uint32_t rx_overruns;

void USART2_IRQHandler(void)
{
    uint8_t c = (uint8_t)USART2->DR;
    uint32_t next = (rx_head + 1U) & RX_MASK;
    if (next == rx_tail) {
        rx_overruns = rx_overruns + 1U;
        return;
    }
    rx_buf[rx_head] = c;
    rx_head = next;
}

static int rx_pop(uint8_t *out)
{
    uint32_t t = rx_tail;
    if (t == rx_head) {
        return 0;
    }
    *out = rx_buf[t];
    rx_tail = (t + 1U) & RX_MASK;
    return 1;
}

int main(void)
{
    uint8_t c;

    board_clock_init();
    USART2->CR1 = USART_CR1_UE | USART_CR1_RXNEIE;
    NVIC_EnableIRQ(USART2_IRQn);
    for (;;) {
        while (rx_pop(&c)) {
            process_byte(c);
        }
        __WFI();
    }
}
