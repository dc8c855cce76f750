/* Vibration logger: ADC1 converts continuously (one sample every ~1 us) into s_adc by DMA1
 * channel 1 in normal mode (it stops after the block); on transfer-complete main prints the block and its peak (each print ~1 ms). */
#include "stm32f10x_spl.h"

#define N_SAMPLES 64U

static uint16_t s_adc[N_SAMPLES];
static volatile uint8_t s_block_ready;
static volatile uint32_t s_blocks;

void DMA1_Channel1_IRQHandler(void)
{
    if (DMA_GetITStatus(DMA1_IT_TC1) == SET) {
        DMA_ClearITPendingBit(DMA1_IT_TC1);
        s_blocks++;
        s_block_ready = 1U;
    }
}

static void dma_start(void)
{
    DMA_InitTypeDef d;
    d.DMA_PeripheralBaseAddr = (uint32_t)(uintptr_t)&ADC1->DR;
    d.DMA_MemoryBaseAddr = (uint32_t)(uintptr_t)s_adc;
    d.DMA_DIR = DMA_DIR_PeripheralSRC;
    d.DMA_BufferSize = N_SAMPLES;
    d.DMA_PeripheralInc = DMA_PeripheralInc_Disable;
    d.DMA_MemoryInc = DMA_MemoryInc_Enable;
    d.DMA_PeripheralDataSize = DMA_PeripheralDataSize_HalfWord;
    d.DMA_MemoryDataSize = DMA_MemoryDataSize_HalfWord;
    d.DMA_Mode = DMA_Mode_Normal;
    d.DMA_Priority = DMA_Priority_High;
    d.DMA_M2M = DMA_M2M_Disable;
    DMA_Init(DMA1_Channel1, &d);
    DMA_ITConfig(DMA1_Channel1, DMA_IT_TC, ENABLE);
    DMA_Cmd(DMA1_Channel1, ENABLE);
}

int main(void)
{
    NVIC_InitTypeDef n = { DMA1_Channel1_IRQn, 1, 0, ENABLE };
    board_init();
    NVIC_PriorityGroupConfig(NVIC_PriorityGroup_2);
    NVIC_Init(&n);
    dma_start();
    ADC_DMACmd(ADC1, ENABLE);
    ADC_SoftwareStartConvCmd(ADC1, ENABLE);
    for (;;) {
        if (s_block_ready) {
            uint16_t peak = 0U;
            s_block_ready = 0U;
            for (uint32_t i = 0U; i < N_SAMPLES; i++) {
                report_u32("s", s_adc[i]);
                if (s_adc[i] > peak) {
                    peak = s_adc[i];
                }
            }
            report_u32("peak", peak);
            report_u32("block", s_blocks);
            DMA_Cmd(DMA1_Channel1, DISABLE);
            DMA_SetCurrDataCounter(DMA1_Channel1, N_SAMPLES);
            DMA_Cmd(DMA1_Channel1, ENABLE);
        }
    }
}
