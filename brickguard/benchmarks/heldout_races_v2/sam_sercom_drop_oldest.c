/* SAM E54 SERCOM0 receive ring that keeps the newest bytes: when the ring is full the handler
 * drops the oldest byte by advancing the read index itself; the main loop forwards bytes to the
 * second UART. */
#include "sam_mini.h"

#define RX_SIZE 32U

static volatile uint8_t g_rxBuf[RX_SIZE];
static volatile uint32_t g_rxWr; /* handler only writes */
static volatile uint32_t g_rxRd; /* main and, when the ring is full, the handler */

void SERCOM0_2_Handler(void)
{
    if ((SERCOM0->USART.INTFLAG & SERCOM_USART_INTFLAG_RXC) != 0U) {
        uint8_t byte = (uint8_t)SERCOM0->USART.DATA;
        uint32_t next = (g_rxWr + 1U) % RX_SIZE;
        if (next == g_rxRd) {
            g_rxRd = (g_rxRd + 1U) % RX_SIZE; /* drop the oldest */
        }
        g_rxBuf[g_rxWr] = byte;
        g_rxWr = next;
    }
}

int main(void)
{
    SYS_Initialize(NULL);
    NVIC_EnableIRQ(SERCOM0_2_IRQn);

    for (;;) {
        uint32_t rd = g_rxRd;
        if (rd != g_rxWr) {
            uart_put(g_rxBuf[rd]); /* blocks until the byte is out (87 us at 115200 baud) */
            g_rxRd = (rd + 1U) % RX_SIZE;
        }
    }
}
