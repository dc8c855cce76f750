/* Two handlers count errors into one counter at the same priority: neither preempts the other. */
#include "board.h"

static volatile uint32_t err_count;
static volatile uint32_t last_err_report;

void USART1_IRQHandler(void)
{
    if (USART1->SR & 0x8U) {
        err_count++;
        (void)USART1->DR;
    }
}

void TIM3_IRQHandler(void)
{
    TIM3->SR = 0U;
    if (TIM3->CNT > 1000U) {
        err_count++;
    }
}

int main(void)
{
    board_clock_init();
    NVIC_SetPriority(USART1_IRQn, 5U);
    NVIC_SetPriority(TIM3_IRQn, 5U);
    NVIC_EnableIRQ(USART1_IRQn);
    NVIC_EnableIRQ(TIM3_IRQn);
    for (;;) {
        last_err_report = err_count;
        __WFI();
    }
}
