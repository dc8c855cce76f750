/* Vibration monitor on an LPC1768 under uC/OS-II: the ADC runs in burst mode and its ISR stores
 * 128 samples into s_block; at the 128th it switches its own interrupt off (ADINTEN = 0) and posts
 * the semaphore. The analysis task processes the block, rewinds the fill index and only then
 * switches the ADC interrupt back on. */
#include "ucos_ii.h"

#define NBLOCK 128U

static OS_STK s_fft_stk[512];
static OS_EVENT *s_block_sem;
static uint16_t s_block[NBLOCK];
static volatile uint32_t s_fill;
static volatile uint32_t s_blocks;

static void App_ADC_ISR(void)
{
    OSIntEnter();
    s_block[s_fill] = (uint16_t)((LPC_ADC->ADDR[0] >> 4) & 0xFFFU);
    s_fill++;
    if (s_fill == NBLOCK) {
        LPC_ADC->ADINTEN = 0U;
        s_blocks++;
        (void)OSSemPost(s_block_sem);
    }
    OSIntExit();
}

static void AppTaskAnalyse(void *p_arg)
{
    INT8U err;
    (void)p_arg;
    for (;;) {
        uint32_t peak = 0U;
        uint32_t sum = 0U;
        OSSemPend(s_block_sem, 0U, &err);
        for (uint32_t i = 0U; i < NBLOCK; i++) {
            sum += s_block[i];
            if (s_block[i] > peak) {
                peak = s_block[i];
            }
        }
        APP_TRACE("blk %lu mean %lu peak %lu\n", (unsigned long)s_blocks,
                  (unsigned long)(sum / NBLOCK), (unsigned long)peak);
        s_fill = 0U;
        LPC_ADC->ADINTEN = 0x01U;
    }
}

int main(void)
{
    BSP_Init();
    OSInit();
    s_block_sem = OSSemCreate(0U);
    LPC_ADC->ADCR = 0x01U | (4UL << 8) | (1UL << 16) | (1UL << 21);
    LPC_ADC->ADINTEN = 0x01U;
    BSP_IntVectSet(BSP_INT_ID_ADC, App_ADC_ISR);
    BSP_IntPrioSet(BSP_INT_ID_ADC, 3U);
    BSP_IntEn(BSP_INT_ID_ADC);
    (void)OSTaskCreate(AppTaskAnalyse, NULL, &s_fft_stk[511], 7U);
    OSStart();
    return 0;
}
