/* The DMA handler (priority 0) preempts the SPI handler (priority 2), per brickguard.toml. */
#include "cmsis_stub.h"

volatile uint32_t pending;

void DMA2_Stream0_IRQHandler(void)
{
    pending |= 1u;
}

void SPI1_IRQHandler(void)
{
    pending &= ~2u;                  /* expect: BG102 */
}
