/* USART2 receive ring with a shared fill count, STM32G4 LL drivers. */
#include "stm32g4_ll.h"

#define RX_SIZE 64U

static uint8_t rx_buf[RX_SIZE];
static uint32_t rx_wr;
static uint32_t rx_rd;
static volatile uint32_t rx_count;
static volatile uint32_t rx_overruns;

void USART2_IRQHandler(void)
{
    if (LL_USART_IsActiveFlag_ORE(USART2) != 0U) {
        LL_USART_ClearFlag_ORE(USART2);
        rx_overruns++;
    }
    if (LL_USART_IsActiveFlag_RXNE(USART2) != 0U) {
        uint8_t b = LL_USART_ReceiveData8(USART2);
        if (rx_count < RX_SIZE) {
            rx_buf[rx_wr] = b;
            rx_wr = (rx_wr + 1U) % RX_SIZE;
            rx_count++;
        }
    }
}

static int console_getc(void)
{
    if (rx_count == 0U) {
        return -1;
    }
    uint8_t b = rx_buf[rx_rd];
    rx_rd = (rx_rd + 1U) % RX_SIZE;
    rx_count--;
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
