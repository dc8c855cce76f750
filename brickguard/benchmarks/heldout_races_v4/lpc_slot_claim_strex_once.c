/* Frame slots: main claims a free transmit slot from a bit mask with LDREX/STREX; the UART0
 * handler gives a slot back when the peer acknowledges its frame. */
#include "chip_lpc17xx.h"

static volatile uint32_t g_free_slots = 0xFFU;
static volatile uint32_t g_acked;

void UART0_IRQHandler(void)
{
    while ((Chip_UART_ReadLineStatus(LPC_UART0) & UART_LSR_RDR) != 0U) {
        uint8_t ack = Chip_UART_ReadByte(LPC_UART0);
        if (ack < 8U) {
            g_free_slots |= 1UL << ack;
            g_acked++;
        }
    }
}

static int32_t slot_claim(void)
{
    uint32_t free = __LDREXW(&g_free_slots);
    if (free == 0U) {
        __CLREX();
        return -1;
    }
    uint32_t slot = (uint32_t)__builtin_ctz(free);
    (void)__STREXW(free & ~(1UL << slot), &g_free_slots);
    return (int32_t)slot;
}

int main(void)
{
    SystemCoreClockUpdate();
    Chip_UART_Init(LPC_UART0);
    Chip_UART_IntEnable(LPC_UART0, UART_IER_RBRINT);
    NVIC_SetPriority(UART0_IRQn, 6U);
    NVIC_EnableIRQ(UART0_IRQn);
    for (;;) {
        int32_t slot = slot_claim();
        if (slot >= 0) {
            slot_use((uint32_t)slot);
        }
    }
}
