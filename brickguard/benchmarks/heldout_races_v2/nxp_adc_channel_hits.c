/* Per-channel sample counters: the ADC1 handler counts the channel it has just converted, the
 * main loop counts the channel the user has selected for a manual one-shot read. */
#include "fsl_mini.h"

#define NUM_CH 4U

static volatile uint32_t g_hits[NUM_CH];
static volatile uint32_t g_seqChannel; /* channel being converted, set by the handler */
static uint32_t g_userChannel;         /* main only */

void ADC1_IRQHandler(void)
{
    uint32_t ch = g_seqChannel;
    (void)ADC_GetChannelConversionValue(ADC1, 0U);
    g_hits[ch]++;
    g_seqChannel = (ch + 1U) % NUM_CH;
    SDK_ISR_EXIT_BARRIER;
}

int main(void)
{
    BOARD_InitHardware();
    EnableIRQ(ADC1_IRQn);

    for (;;) {
        (void)ADC_GetChannelConversionValue(ADC1, 1U);
        g_hits[g_userChannel]++;
        g_userChannel = (g_userChannel + 1U) % NUM_CH;
        app_log_u32(g_hits[0]);
    }
}
