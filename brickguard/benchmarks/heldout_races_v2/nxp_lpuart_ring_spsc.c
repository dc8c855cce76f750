/* LPUART1 receive ring, MCUXpresso style: the IRQ handler produces, the main loop consumes. */
#include "fsl_mini.h"

#define RING_SIZE 64U /* power of two */

static uint8_t g_ringData[RING_SIZE];
static volatile uint32_t g_ringIn;  /* written by LPUART1_IRQHandler only */
static volatile uint32_t g_ringOut; /* written by main only */
static volatile uint32_t g_ringDropped;

void LPUART1_IRQHandler(void)
{
    uint32_t flags = LPUART_GetStatusFlags(LPUART1);
    if ((flags & kLPUART_RxDataRegFullFlag) != 0U) {
        uint8_t byte = LPUART_ReadByte(LPUART1);
        uint32_t in = g_ringIn;
        if ((in - g_ringOut) < RING_SIZE) {
            g_ringData[in & (RING_SIZE - 1U)] = byte;
            __DMB();
            g_ringIn = in + 1U;
        } else {
            g_ringDropped++;
        }
    }
    SDK_ISR_EXIT_BARRIER;
}

static bool ring_pop(uint8_t *out)
{
    uint32_t out_idx = g_ringOut;
    if (out_idx == g_ringIn) {
        return false;
    }
    __DMB();
    *out = g_ringData[out_idx & (RING_SIZE - 1U)];
    g_ringOut = out_idx + 1U;
    return true;
}

int main(void)
{
    uint8_t line[32];
    uint32_t len = 0U;

    BOARD_InitHardware();
    LPUART_EnableInterrupts(LPUART1, kLPUART_RxDataRegFullInterruptEnable);
    EnableIRQ(LPUART1_IRQn);

    for (;;) {
        uint8_t c;
        if (ring_pop(&c)) {
            line[len++] = c;
            if (c == '\n' || len == sizeof(line)) {
                app_handle_line(line, len);
                len = 0U;
            }
        }
        if (g_ringDropped != 0U) {
            app_log_u32(g_ringDropped);
        }
    }
}
