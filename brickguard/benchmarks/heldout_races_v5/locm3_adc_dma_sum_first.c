/* Vibration monitor on an STM32F407 with libopencm3: ADC1 samples the accelerometer at 10 kHz
 * into a 512-sample buffer by DMA2 stream 0; at transfer complete main computes the RMS level of
 * the block, then starts the next block. */
#include "locm3.h"

#define BLOCK 512U

static uint16_t s_adc_buf[BLOCK];
static volatile bool g_block_ready;
static uint32_t s_blocks;

void dma2_stream0_isr(void)
{
    if (dma_get_interrupt_flag(DMA2, DMA_STREAM0, DMA_TCIF)) {
        dma_clear_interrupt_flags(DMA2, DMA_STREAM0, DMA_TCIF);
        g_block_ready = true;
    }
}

static void start_block(void)
{
    dma_set_memory_address(DMA2, DMA_STREAM0, (uint32_t)(uintptr_t)s_adc_buf);
    dma_set_number_of_data(DMA2, DMA_STREAM0, BLOCK);
    dma_enable_stream(DMA2, DMA_STREAM0);
    adc_start_conversion_regular(ADC1);
}

int main(void)
{
    clock_setup();
    dma_enable_transfer_complete_interrupt(DMA2, DMA_STREAM0);
    nvic_set_priority(NVIC_DMA2_STREAM0_IRQ, 0x60);
    nvic_enable_irq(NVIC_DMA2_STREAM0_IRQ);
    start_block();
    for (;;) {
        while (!g_block_ready) {
        }
        g_block_ready = false;
        uint64_t sq = 0U;
        for (uint32_t i = 0U; i < BLOCK; i++) {
            int32_t v = (int32_t)s_adc_buf[i] - 2048;
            sq += (uint64_t)((int64_t)v * v);
        }
        start_block();
        s_blocks++;
        console_printf("block %lu mean-square %lu\n", (unsigned long)s_blocks, (unsigned long)(sq / BLOCK));
    }
    return 0;
}
