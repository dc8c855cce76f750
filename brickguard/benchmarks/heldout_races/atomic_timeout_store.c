/* Link timeout armed by a single store from the main loop, counted down by SysTick. */
#include "board.h"

static volatile uint16_t link_timeout;
static volatile uint32_t link_up;
static volatile uint32_t rx_activity;

void SysTick_Handler(void)
{
    if (link_timeout != 0U) {
        link_timeout--;
        if (link_timeout == 0U) {
            link_up = 0U;
        }
    }
}

void USART1_IRQHandler(void)
{
    (void)USART1->DR;
    rx_activity = 1U;
}

int main(void)
{
    board_clock_init();
    SysTick_Config(168000U);
    NVIC_EnableIRQ(USART1_IRQn);
    for (;;) {
        if (rx_activity != 0U) {
            rx_activity = 0U;
            link_timeout = 500U;
            link_up = 1U;
        }
        __WFI();
    }
}
