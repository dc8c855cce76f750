/* Request flag set by the main loop with a single store, consumed by the timer handler;
 * the handler reads it once per tick, so no compiler caching can defeat it. */
#include "board.h"

static volatile uint32_t beep_request;
static uint32_t beep_len_ms = 20U;

void TIM2_IRQHandler(void)
{
    static uint32_t remaining;
    TIM2->SR = 0U;
    if (beep_request != 0U) {
        beep_request = 0U;
        remaining = beep_len_ms;
    }
    if (remaining > 0U) {
        remaining--;
        TIM2->CCR1 = 500U;
    } else {
        TIM2->CCR1 = 0U;
    }
}

int main(void)
{
    board_clock_init();
    beep_len_ms = 40U;
    NVIC_EnableIRQ(TIM2_IRQn);
    for (;;) {
        if (USART1->SR & USART_SR_RXNE) {
            (void)USART1->DR;
            beep_request = 1U;
        }
    }
}
