/* Sensor frame receiver on a Nuvoton M487 (NuMicro BSP): PDMA channel 2 moves 32-byte frames from
 * UART1 into memory; at transfer done the PDMA interrupt tells main, which re-arms the channel
 * and then decodes the frame (sync byte, 14 little-endian readings, checksum). */
#include "NuMicro.h"

#define FRAME 32U
#define CH 2U

static uint8_t s_rx[FRAME];
static volatile uint32_t g_frames;
static volatile uint32_t s_decoded_seq;
static uint32_t s_bad;
static int32_t s_sum[14];

void PDMA_IRQHandler(void)
{
    uint32_t done = PDMA_GET_TD_STS(PDMA);
    if ((done & (1UL << CH)) != 0U) {
        PDMA_CLR_TD_FLAG(PDMA, 1UL << CH);
        g_frames++;
    }
}

static void arm(void)
{
    PDMA_SetTransferCnt(PDMA, CH, PDMA_WIDTH_8, FRAME);
    PDMA_SetTransferAddr(PDMA, CH, (uint32_t)(uintptr_t)&UART1->DAT, PDMA_SAR_FIX, (uint32_t)(uintptr_t)s_rx,
                         PDMA_DAR_INC);
    PDMA_SetTransferMode(PDMA, CH, PDMA_UART0_RX + 2U, 0U, 0U);
}

static void decode(const uint8_t *f)
{
    uint8_t ck = 0U;
    for (uint32_t i = 0U; i < FRAME - 1U; i++) {
        ck = (uint8_t)(ck + f[i]);
    }
    if (f[0] != 0xA5U || ck != f[FRAME - 1U]) {
        s_bad++;
        return;
    }
    for (uint32_t k = 0U; k < 14U; k++) {
        int16_t v = (int16_t)(f[1U + 2U * k] | (f[2U + 2U * k] << 8));
        s_sum[k] += v;
        printf("r%lu=%d ", (unsigned long)k, v); /* UART0 console at 115200 Bd: ~0.6 ms each */
    }
    printf("\n");
    s_decoded_seq++;
}

int main(void)
{
    uint32_t seen = 0U;
    SYS_Init();
    UART_Open(UART1, 921600U);
    PDMA_Open(PDMA, 1UL << CH);
    PDMA_EnableInt(PDMA, CH, PDMA_INT_TRANS_DONE);
    NVIC_SetPriority(PDMA_IRQn, 4U);
    NVIC_EnableIRQ(PDMA_IRQn);
    arm();
    for (;;) {
        if (g_frames == seen) {
            continue;
        }
        seen = g_frames;
        arm();
        decode(s_rx);
    }
}
