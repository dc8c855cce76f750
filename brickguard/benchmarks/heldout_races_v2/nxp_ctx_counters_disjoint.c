/* One statistics word per context: the LPUART1 handler and the main loop each count in their own
 * element of the same array, and the main loop reports both. */
#include "fsl_mini.h"

enum { CTX_IRQ = 0, CTX_MAIN = 1, CTX_COUNT = 2 };

static volatile uint32_t g_bytes[CTX_COUNT];

void LPUART1_IRQHandler(void)
{
    if ((LPUART_GetStatusFlags(LPUART1) & kLPUART_RxDataRegFullFlag) != 0U) {
        (void)LPUART_ReadByte(LPUART1);
        g_bytes[CTX_IRQ]++;
    }
    SDK_ISR_EXIT_BARRIER;
}

int main(void)
{
    BOARD_InitHardware();
    LPUART_EnableInterrupts(LPUART1, kLPUART_RxDataRegFullInterruptEnable);
    EnableIRQ(LPUART1_IRQn);

    for (;;) {
        LPUART_WriteByte(LPUART1, (uint8_t)'.');
        g_bytes[CTX_MAIN]++;
        app_log_u32(g_bytes[CTX_IRQ]);
        app_log_u32(g_bytes[CTX_MAIN]);
    }
}
