/* LPUART1 receive ring with a fill count shared by the handler and the main loop. */
#include "fsl_mini.h"

#define RING_SIZE 64U

typedef struct {
    uint8_t data[RING_SIZE];
    uint32_t head;           /* handler only */
    uint32_t tail;           /* main only */
    volatile uint32_t count; /* both */
} byte_ring_t;

static byte_ring_t s_rx;

void LPUART1_IRQHandler(void)
{
    if ((LPUART_GetStatusFlags(LPUART1) & kLPUART_RxDataRegFullFlag) != 0U) {
        uint8_t byte = LPUART_ReadByte(LPUART1);
        if (s_rx.count < RING_SIZE) {
            s_rx.data[s_rx.head] = byte;
            s_rx.head = (s_rx.head + 1U) % RING_SIZE;
            s_rx.count++;
        }
    }
    SDK_ISR_EXIT_BARRIER;
}

static int ring_get(byte_ring_t *r)
{
    if (r->count == 0U) {
        return -1;
    }
    int byte = r->data[r->tail];
    r->tail = (r->tail + 1U) % RING_SIZE;
    r->count--;
    return byte;
}

int main(void)
{
    BOARD_InitHardware();
    LPUART_EnableInterrupts(LPUART1, kLPUART_RxDataRegFullInterruptEnable);
    EnableIRQ(LPUART1_IRQn);

    for (;;) {
        int c = ring_get(&s_rx);
        if (c >= 0) {
            LPUART_WriteByte(LPUART1, (uint8_t)c);
        }
    }
}
