/* Link-activity meter: the USART1 receiver and a TIM2 heartbeat both count into one total that
 * main reports once a second. STM32F103, SPL, priority group 2. */
#include "stm32f10x_spl.h"

static volatile uint32_t g_activity;   /* events seen by either handler */
static volatile uint16_t g_rx_last;    /* last received byte */
static volatile uint32_t g_ticks;      /* 10 ms ticks */

void USART1_IRQHandler(void)
{
    if (USART_GetITStatus(USART1, USART_IT_RXNE) == SET) {
        g_rx_last = USART_ReceiveData(USART1);
        g_activity++;
    }
}

void TIM2_IRQHandler(void)
{
    if (TIM_GetITStatus(TIM2, TIM_IT_Update) == SET) {
        TIM_ClearITPendingBit(TIM2, TIM_IT_Update);
        g_ticks++;
        if ((g_ticks % 10U) == 0U) {
            g_activity++;              /* the heartbeat counts as activity */
        }
    }
}

static void irq_setup(void)
{
    NVIC_InitTypeDef n;
    NVIC_PriorityGroupConfig(NVIC_PriorityGroup_2);
    n.NVIC_IRQChannel = USART1_IRQn;
    n.NVIC_IRQChannelPreemptionPriority = 1;
    n.NVIC_IRQChannelSubPriority = 0;
    n.NVIC_IRQChannelCmd = ENABLE;
    NVIC_Init(&n);
    n.NVIC_IRQChannel = TIM2_IRQn;
    n.NVIC_IRQChannelPreemptionPriority = 1;
    n.NVIC_IRQChannelSubPriority = 3;
    n.NVIC_IRQChannelCmd = ENABLE;
    NVIC_Init(&n);
}

int main(void)
{
    uint32_t last = 0U, next = 100U;
    board_init();
    irq_setup();
    USART_ITConfig(USART1, USART_IT_RXNE, ENABLE);
    TIM_ITConfig(TIM2, TIM_IT_Update, ENABLE);
    TIM_Cmd(TIM2, ENABLE);
    for (;;) {
        if ((int32_t)(g_ticks - next) >= 0) {
            uint32_t now = g_activity;
            next += 100U;
            report_u32("activity/s", now - last);
            report_u32("last byte", g_rx_last);
            last = now;
        }
    }
}
