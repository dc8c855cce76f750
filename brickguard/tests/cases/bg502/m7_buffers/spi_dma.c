/* DMA buffers on a cached core: aligned and sized in whole 32-byte lines, or reported where
   they are declared; stack buffers reported at the DMA call. Every transmit is cleaned first. */
#include "dma_stub.h"

#define CACHE_LINE 32
static uint8_t good_attr[64] __attribute__((aligned(32)));
static _Alignas(CACHE_LINE) uint8_t good_macro[32];
static uint8_t unaligned[64];                                  /* expect: BG502 */
static uint8_t odd_size[40] __attribute__((aligned(CACHE_LINE)));  /* expect: BG502 */
static uint32_t words[16];                                     /* expect: BG502 */
static uint8_t not_dma[64];
SPI_HandleTypeDef hspi1;

void transfers(void)
{
    SCB_CleanDCache();
    (void)HAL_SPI_Transmit_DMA(&hspi1, good_attr, 64);
    (void)HAL_SPI_Transmit_DMA(&hspi1, good_macro, 32);
    (void)HAL_SPI_Transmit_DMA(&hspi1, unaligned, 64);
    (void)HAL_SPI_Receive_DMA(&hspi1, odd_size, 40);
    (void)HAL_SPI_Receive_DMA(&hspi1, (uint8_t *)words, 64);
    (void)HAL_SPI_Transmit_DMA(&hspi1, unaligned, 16);   /* reported once, at the declaration */
    not_dma[0] = 1;
}

void from_stack(void)
{
    uint8_t frame[32];
    static uint8_t kept[32] __attribute__((aligned(32)));
    frame[0] = 0x9f;
    kept[0] = 0x9f;
    SCB_CleanDCache();
    (void)HAL_SPI_Transmit_DMA(&hspi1, frame, 32);        /* expect: BG502 */
    (void)HAL_SPI_Transmit_DMA(&hspi1, kept, 32);
}
