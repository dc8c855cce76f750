/* Mains monitor on a TM4C123: ADC0 sequencer 0 is triggered by Timer0 at 12.8 kHz and the uDMA
 * moves each result into g_samples (256 samples = one 20 ms cycle at 50 Hz). When the block is in,
 * the ADC0SS0 interrupt re-arms the channel and tells main, which computes the RMS and prints it.
 * Computing and printing take about 6 ms. */
#include "tivaware.h"

#define NSAMP 256U

static uint8_t s_dma_table[1024] __attribute__((aligned(1024)));
static uint16_t g_samples[NSAMP];
static volatile bool g_block_ready;
static volatile uint32_t g_blocks;

static void arm_dma(void)
{
    uDMAChannelTransferSet(UDMA_CHANNEL_ADC0 | UDMA_PRI_SELECT, UDMA_MODE_BASIC,
                           (void *)(ADC0_BASE + ADC_O_SSFIFO0), g_samples, NSAMP);
    uDMAChannelEnable(UDMA_CHANNEL_ADC0);
}

static void Adc0Ss0IntHandler(void)
{
    ADCIntClear(ADC0_BASE, 0U);
    if (!uDMAChannelIsEnabled(UDMA_CHANNEL_ADC0)) {
        g_blocks++;
        arm_dma();
        g_block_ready = true;
    }
}

static uint32_t isqrt(uint32_t v)
{
    uint32_t r = 0U;
    uint32_t bit = 1UL << 30;
    while (bit > v) {
        bit >>= 2;
    }
    while (bit != 0U) {
        if (v >= r + bit) {
            v -= r + bit;
            r = (r >> 1) + bit;
        } else {
            r >>= 1;
        }
        bit >>= 2;
    }
    return r;
}

int main(void)
{
    SysCtlPeripheralEnable(SYSCTL_PERIPH_UDMA);
    SysCtlPeripheralEnable(SYSCTL_PERIPH_ADC0);
    SysCtlPeripheralEnable(SYSCTL_PERIPH_TIMER0);
    uDMAEnable();
    uDMAControlBaseSet(s_dma_table);
    uDMAChannelControlSet(UDMA_CHANNEL_ADC0 | UDMA_PRI_SELECT,
                          UDMA_SIZE_16 | UDMA_SRC_INC_NONE | UDMA_DST_INC_16 | UDMA_ARB_4);
    ADCSequenceConfigure(ADC0_BASE, 0U, ADC_TRIGGER_TIMER, 0U);
    ADCSequenceDMAEnable(ADC0_BASE, 0U);
    ADCSequenceEnable(ADC0_BASE, 0U);
    ADCIntRegister(ADC0_BASE, 0U, Adc0Ss0IntHandler);
    IntPrioritySet(INT_ADC0SS0, 0x40U);
    TimerConfigure(TIMER0_BASE, TIMER_CFG_PERIODIC);
    TimerLoadSet(TIMER0_BASE, TIMER_A, SysCtlClockGet() / 12800U);
    arm_dma();
    TimerEnable(TIMER0_BASE, TIMER_A);
    IntMasterEnable();

    for (;;) {
        uint64_t sq = 0U;
        int32_t mean = 0;
        while (!g_block_ready) {
        }
        g_block_ready = false;
        for (uint32_t i = 0U; i < NSAMP; i++) {
            mean += g_samples[i];
        }
        mean /= (int32_t)NSAMP;
        for (uint32_t i = 0U; i < NSAMP; i++) {
            int32_t d = (int32_t)g_samples[i] - mean;
            sq += (uint64_t)((int64_t)d * d);
        }
        UARTprintf("block %u rms %u\n", g_blocks, isqrt((uint32_t)(sq / NSAMP)));
    }
}
