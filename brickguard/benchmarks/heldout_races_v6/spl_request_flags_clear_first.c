/* Scale front end: a button on EXTI0 asks for a tare, TIM3 asks for a sample every 20 ms; both
 * only set a request flag that main clears before doing the work. */
#include "stm32f10x_spl.h"

static volatile uint8_t g_tare_request;
static volatile uint8_t g_sample_due;
static volatile uint32_t g_presses;
static int32_t s_offset;                 /* main only */

void EXTI0_IRQHandler(void)
{
    EXTI_ClearITPendingBit(EXTI_Line0);
    g_presses++;
    g_tare_request = 1U;
}

void TIM3_IRQHandler(void)
{
    TIM_ClearITPendingBit(TIM3, TIM_IT_Update);
    g_sample_due = 1U;
}

static int32_t read_cell(void)
{
    return (int32_t)(ADC1->DR & 0xFFFU);
}

int main(void)
{
    NVIC_InitTypeDef n = { EXTI0_IRQn, 0, 0, ENABLE };
    board_init();
    NVIC_PriorityGroupConfig(NVIC_PriorityGroup_4);
    NVIC_Init(&n);
    n.NVIC_IRQChannel = TIM3_IRQn;
    n.NVIC_IRQChannelPreemptionPriority = 3;
    NVIC_Init(&n);
    TIM_ITConfig(TIM3, TIM_IT_Update, ENABLE);
    TIM_Cmd(TIM3, ENABLE);
    for (;;) {
        if (g_tare_request) {
            g_tare_request = 0U;
            s_offset = read_cell();
            report_u32("tare #", g_presses);
        }
        if (g_sample_due) {
            g_sample_due = 0U;
            report_u32("mass", (uint32_t)(read_cell() - s_offset));
        }
    }
}
