/* Masking one interrupt protects against that interrupt only. */
#include "cmsis_stub.h"

typedef enum { USART1_IRQn = 37, TIM2_IRQn = 28 } IRQn_Type;
void HAL_NVIC_DisableIRQ(IRQn_Type irq);
void HAL_NVIC_EnableIRQ(IRQn_Type irq);

volatile uint32_t rx_count, both;

void USART1_IRQHandler(void)
{
    rx_count++;
    both++;
}

void TIM2_IRQHandler(void)
{
    both++;
}

int main(void)
{
    HAL_NVIC_EnableIRQ(USART1_IRQn);
    HAL_NVIC_EnableIRQ(TIM2_IRQn);
    HAL_NVIC_DisableIRQ(USART1_IRQn);
    rx_count--;                      /* USART1 is masked: the only writer cannot fire */
    both--;                          /* expect: BG102 */
    HAL_NVIC_EnableIRQ(USART1_IRQn);
    rx_count--;                      /* expect: BG102 */
    return 0;
}
