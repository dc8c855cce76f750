/* SAM E54 SERCOM0 receive ring; a blocking getc for the command shell waits for the handler to
 * add a byte. */
#include "sam_mini.h"

#define RX_SIZE 32U

static uint8_t g_rxBuf[RX_SIZE];
static uint32_t g_rxWr; /* SERCOM0_2_Handler only writes */
static uint32_t g_rxRd; /* main only writes */

void SERCOM0_2_Handler(void)
{
    if ((SERCOM0->USART.INTFLAG & SERCOM_USART_INTFLAG_RXC) != 0U) {
        uint8_t byte = (uint8_t)SERCOM0->USART.DATA;
        uint32_t next = (g_rxWr + 1U) % RX_SIZE;
        if (next != g_rxRd) {
            g_rxBuf[g_rxWr] = byte;
            g_rxWr = next;
        }
    }
}

static uint8_t shell_getc(void)
{
    while (g_rxRd == g_rxWr) {
        /* wait for the handler */
    }
    uint8_t byte = g_rxBuf[g_rxRd];
    g_rxRd = (g_rxRd + 1U) % RX_SIZE;
    return byte;
}

int main(void)
{
    SYS_Initialize(NULL);
    NVIC_EnableIRQ(SERCOM0_2_IRQn);

    for (;;) {
        uart_put(shell_getc());
    }
}
