/* Event bits: the handler sets bits, the main loop clears the ones it handled. */
#include "board.h"

#define EV_RX 0x1U
#define EV_TX 0x2U
#define EV_ERR 0x4U

static volatile uint32_t pending;

void USART2_IRQHandler(void)
{
    uint32_t sr = USART2->SR;
    if (sr & USART_SR_RXNE) {
        pending |= EV_RX;
    }
    if (sr & USART_SR_TXE) {
        pending |= EV_TX;
    }
    if (sr & 0x8U) {
        pending |= EV_ERR;
    }
}

int main(void)
{
    board_clock_init();
    NVIC_EnableIRQ(USART2_IRQn);
    for (;;) {
        uint32_t ev = pending;
        if (ev & EV_RX) {
            process_byte((uint8_t)USART2->DR);
        }
        if (ev & EV_ERR) {
            led_toggle();
        }
        pending = ev & ~(EV_RX | EV_ERR);
    }
}
