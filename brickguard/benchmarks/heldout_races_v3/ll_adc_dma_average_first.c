/* Eight ADC1 samples per frame by DMA1 channel 1; main averages, then restarts the next frame.
 * STM32G4 LL drivers. */
#include "stm32g4_ll.h"

#define N_SAMPLES 8U

static uint16_t adc_samples[N_SAMPLES];
static volatile uint32_t dma_done;

void DMA1_Channel1_IRQHandler(void)
{
    if (LL_DMA_IsActiveFlag_TC1(DMA1) != 0U) {
        LL_DMA_ClearFlag_TC1(DMA1);
        LL_DMA_DisableChannel(DMA1, LL_DMA_CHANNEL_1);
        dma_done = 1U;
    }
}

static void adc_frame_start(void)
{
    LL_DMA_SetMemoryAddress(DMA1, LL_DMA_CHANNEL_1, (uint32_t)(uintptr_t)adc_samples);
    LL_DMA_SetDataLength(DMA1, LL_DMA_CHANNEL_1, N_SAMPLES);
    LL_DMA_EnableChannel(DMA1, LL_DMA_CHANNEL_1);
    LL_ADC_REG_StartConversion(ADC1);
}

extern void control_update(uint32_t mean);

int main(void)
{
    SystemClock_Config();
    LL_DMA_SetPeriphAddress(DMA1, LL_DMA_CHANNEL_1, LL_ADC_DMA_GetRegAddr(ADC1));
    LL_DMA_EnableIT_TC(DMA1, LL_DMA_CHANNEL_1);
    NVIC_SetPriority(DMA1_Channel1_IRQn, 2U);
    NVIC_EnableIRQ(DMA1_Channel1_IRQn);
    adc_frame_start();
    for (;;) {
        while (dma_done == 0U) {
        }
        dma_done = 0U;
        uint32_t sum = 0U;
        for (uint32_t i = 0U; i < N_SAMPLES; i++) {
            sum += adc_samples[i];
        }
        adc_frame_start();
        control_update(sum / N_SAMPLES);
    }
}
