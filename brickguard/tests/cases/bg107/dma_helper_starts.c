/* A DMA start no profile lists, read by its words (a driver call that hands a DMA channel a
   memory address: ``acme_dma_set_memory_address``), made in a helper of the program's own
   (``arm_block()``): the caller's use of the buffer after the helper's call comes after the
   start. The buffer task code only reads is filled by the DMA: reading it before the
   completion flag reads bytes the DMA is still writing. The twin that reads first and
   re-arms after, and the one that waits for the flag after re-arming, are clean. */
#include "cmsis_stub.h"

void acme_dma_set_memory_address(uint32_t dma, uint32_t stream, uint32_t address);
void acme_dma_enable_stream(uint32_t dma, uint32_t stream);
void report(uint32_t v);

static uint16_t s_samples[32];
static uint16_t s_other[32];
static volatile uint32_t g_done;

void DMA2_Stream0_IRQHandler(void)
{
    g_done = 1u;
}

static void arm_block(uint16_t *buf)
{
    acme_dma_set_memory_address(2u, 0u, (uint32_t)(uintptr_t)buf);
    acme_dma_enable_stream(2u, 0u);
}

static void arm_samples(void)
{
    acme_dma_set_memory_address(2u, 1u, (uint32_t)(uintptr_t)s_samples);
    acme_dma_enable_stream(2u, 1u);
}

int main(void)
{
    arm_samples();
    for (;;) {
        while (!g_done) {
        }
        g_done = 0u;
        arm_samples();
        uint32_t sum = s_samples[0];       /* expect: BG107 */
        report(sum);
        while (!g_done) {
        }
        g_done = 0u;
        sum = s_other[0];                  /* no race: read before the next start */
        arm_block(s_other);
        while (!g_done) {
        }
        report(sum + s_other[1]);          /* no race: after the completion flag */
    }
}
