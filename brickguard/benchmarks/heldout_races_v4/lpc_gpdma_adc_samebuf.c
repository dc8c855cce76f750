/* Vibration monitor: the GPDMA moves 128 ADC results into a buffer; on each terminal count the
 * DMA handler flags the block, and main re-arms the channel at once (no sample may be missed)
 * and computes the block's RMS. */
#include "chip_lpc17xx.h"

#define BLOCK 128U

static uint32_t s_adc_buf[2][BLOCK];
static uint8_t s_dma_ch;
static volatile bool g_block_done;
static uint32_t s_cur;

void DMA_IRQHandler(void)
{
    if (Chip_GPDMA_Interrupt(LPC_GPDMA, s_dma_ch) == SUCCESS) {
        g_block_done = true;
    }
}

static uint32_t block_rms(const uint32_t *buf)
{
    uint32_t acc = 0U;
    for (uint32_t i = 0U; i < BLOCK; i++) {
        uint32_t v = ((buf[i] >> 4) & 0xFFFU) - 2048U;
        acc += (v * v) >> 8;
    }
    return acc / BLOCK;
}

int main(void)
{
    SystemCoreClockUpdate();
    Board_Init();
    Chip_GPDMA_Init(LPC_GPDMA);
    s_dma_ch = Chip_GPDMA_GetFreeChannel(LPC_GPDMA, GPDMA_CONN_ADC);
    NVIC_SetPriority(DMA_IRQn, 8U);
    NVIC_EnableIRQ(DMA_IRQn);
    Chip_GPDMA_Transfer(LPC_GPDMA, s_dma_ch, GPDMA_CONN_ADC, (uint32_t)(uintptr_t)s_adc_buf[s_cur],
                        GPDMA_TRANSFERTYPE_P2M_CONTROLLER_DMA, BLOCK);
    for (;;) {
        while (!g_block_done) {
        }
        g_block_done = false;
        uint32_t done = s_cur;
        Chip_GPDMA_Transfer(LPC_GPDMA, s_dma_ch, GPDMA_CONN_ADC, (uint32_t)(uintptr_t)s_adc_buf[s_cur],
                            GPDMA_TRANSFERTYPE_P2M_CONTROLLER_DMA, BLOCK);
        vibration_report(block_rms(s_adc_buf[done]));
    }
}
