/* ADC conversion done flag, polled by the main loop. */
#include "board.h"

static uint32_t adc_done;
static volatile uint32_t adc_value;

void ADC_IRQHandler(void)
{
    if (ADC1->SR & ADC_SR_EOC) {
        adc_value = ADC1->DR;
        adc_done = 1U;
    }
}

int main(void)
{
    board_clock_init();
    NVIC_EnableIRQ(ADC_IRQn);
    ADC1->CR1 |= 1U;
    for (;;) {
        while (adc_done == 0U) {
        }
        adc_done = 0U;
        process_byte((uint8_t)(adc_value >> 4));
        ADC1->CR1 |= 1U;
    }
}
