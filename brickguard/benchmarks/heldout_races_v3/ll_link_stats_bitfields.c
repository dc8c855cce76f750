/* Frame statistics for a USART1 link (STM32G4, LL drivers): the handler counts received frames,
 * main counts the frames it sends; both counters packed in one word for the status register
 * image. */
#include "stm32g4_ll.h"

struct link_stats {
    uint32_t rx_frames : 16;
    uint32_t tx_frames : 16;
};

static volatile struct link_stats g_link;

void USART1_IRQHandler(void)
{
    if (LL_USART_IsActiveFlag_RXNE(USART1) != 0U) {
        if (LL_USART_ReceiveData8(USART1) == 0x7EU) {
            g_link.rx_frames++;
        }
    }
}

extern uint32_t frame_next(uint8_t *out);
extern void uart_send_blocking(USART_TypeDef *u, const uint8_t *p, uint32_t n);

int main(void)
{
    static uint8_t frame[32];
    SystemClock_Config();
    NVIC_SetPriority(USART1_IRQn, 4U);
    LL_USART_EnableIT_RXNE(USART1);
    NVIC_EnableIRQ(USART1_IRQn);
    for (;;) {
        uint32_t n = frame_next(frame);
        if (n != 0U) {
            uart_send_blocking(USART1, frame, n);
            g_link.tx_frames++;
        }
    }
}
