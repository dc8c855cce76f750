/* Receive byte count: the main loop masks the UART interrupt, but the DMA handler also adds to it. */
#include "board.h"

static volatile uint32_t rx_count;

void USART2_IRQHandler(void)
{
    (void)USART2->DR;
    rx_count++;
}

void DMA1_Stream5_IRQHandler(void)
{
    rx_count += 16U;
}

int main(void)
{
    board_clock_init();
    NVIC_EnableIRQ(DMA1_Stream5_IRQn);
    NVIC_EnableIRQ(USART2_IRQn);
    for (;;) {
        NVIC_DisableIRQ(USART2_IRQn);
        uint32_t n = rx_count;
        rx_count = 0U;
        NVIC_EnableIRQ(USART2_IRQn);
        while (n-- > 0U) {
            led_toggle();
        }
    }
}
