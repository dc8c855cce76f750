/* No data cache (the default target): alignment does not matter, but a stack buffer still
   outlives its frame. */
#include "dma_stub.h"

static uint8_t unaligned[20];
SPI_HandleTypeDef hspi1;

void send(void)
{
    uint8_t frame[8] = {0};
    (void)HAL_SPI_Transmit_DMA(&hspi1, unaligned, 20);
    (void)HAL_SPI_Transmit_DMA(&hspi1, frame, 8);         /* expect: BG502 */
}
