/* Energy meter: the high-priority ADC handler accumulates a 64-bit sum, the low-priority
 * DMA handler reports it; the main loop only sleeps. */
#include "board.h"

static volatile uint64_t energy_acc;
static volatile uint32_t reports;
static volatile uint64_t report_buf[8];

void ADC_IRQHandler(void)
{
    uint32_t s = ADC1->DR;
    energy_acc += (uint64_t)s * s;
    if (reports > 1000000U) {
        led_toggle();
    }
}

void DMA1_Stream5_IRQHandler(void)
{
    report_buf[reports % 8U] = energy_acc;
    reports = reports + 1U;
}

int main(void)
{
    board_clock_init();
    NVIC_SetPriority(ADC_IRQn, 2U);
    NVIC_SetPriority(DMA1_Stream5_IRQn, 7U);
    NVIC_EnableIRQ(ADC_IRQn);
    NVIC_EnableIRQ(DMA1_Stream5_IRQn);
    for (;;) {
        __WFI();
    }
}
