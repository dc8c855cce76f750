/* Knock sensor capture on a PSoC 4200 (PSoC Creator): the ADC interrupt stores 32 samples into a
 * block and, when the block is full, disables its own interrupt; main processes the block and
 * only then resets the index and re-enables the interrupt. While main works on the block the
 * ADC interrupt cannot run, so the block and the index change hands without a critical section. */
#include "psoc4.h"

#define BLOCK 32U

static int16 s_block[BLOCK];
static volatile uint8 s_fill;
static uint32 s_knocks;

CY_ISR(AdcIsr)
{
    ADC_ClearEoc();
    s_block[s_fill] = ADC_GetResult16(0U);
    s_fill = (uint8)(s_fill + 1U);
    if (s_fill == BLOCK) {
        isr_Adc_Disable();
    }
}

int main(void)
{
    ADC_Start();
    isr_Adc_StartEx(AdcIsr);
    CyGlobalIntEnable;
    ADC_StartConvert();
    for (;;) {
        if (s_fill != BLOCK) {
            continue;
        }
        int32 peak = 0;
        for (uint8 i = 0U; i < BLOCK; i++) {
            int32 v = s_block[i] < 0 ? -s_block[i] : s_block[i];
            peak = (v > peak) ? v : peak;
        }
        if (peak > 1500) {
            s_knocks++;
            Pin_Led_Write(1U);
        }
        s_fill = 0U;
        isr_Adc_Enable();
    }
}
