/* Over-current protection on an i.MX RT-like part: the ADC1 handler compares each phase-current
 * sample with the trip level and cuts the drive when it is exceeded. The main loop derates the
 * trip level to 80% when the board is hot, scaling the shared value in place. */
#include "fsl_mini.h"

static volatile uint32_t g_tripLevel = 3000U; /* ADC counts */
static volatile uint32_t g_tripped;           /* handler only writes */

void ADC1_IRQHandler(void)
{
    uint32_t sample = ADC_GetChannelConversionValue(ADC1, 0U);
    if (sample > g_tripLevel) {
        g_tripped = 1U;
        GPIO1->DR = 0U; /* gate drivers off */
    }
    SDK_ISR_EXIT_BARRIER;
}

int main(void)
{
    bool derated = false;

    BOARD_InitHardware();
    NVIC_SetPriority(ADC1_IRQn, 0U);
    EnableIRQ(ADC1_IRQn);

    for (;;) {
        uint32_t temp = ADC_GetChannelConversionValue(ADC1, 1U);
        if (!derated && temp > 2500U) {
            g_tripLevel *= 4U;
            g_tripLevel /= 5U;
            derated = true;
        }
        if (g_tripped != 0U) {
            app_log_u32(g_tripLevel);
        }
    }
}
