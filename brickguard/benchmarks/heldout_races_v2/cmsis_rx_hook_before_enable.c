/* Bare CMSIS: the UART0 handler passes each received byte to the protocol's receive hook through
 * a pointer. The hook is installed by proto_install before the UART0 interrupt is enabled and
 * never changed afterwards. */
#include "cmsis_dev.h"

typedef void (*rx_hook_t)(uint8_t byte);

static rx_hook_t g_rxHook;
static volatile uint32_t g_rxBytes; /* UART0 only writes */

static void slip_rx(uint8_t byte)
{
    if (byte == 0xC0U) {
        blink();
    }
}

void UART0_IRQHandler(void)
{
    uint8_t byte = (uint8_t)ACME_UART0->DATA;
    g_rxBytes++;
    g_rxHook(byte);
}

static void proto_install(rx_hook_t hook)
{
    g_rxHook = hook;
}

int main(void)
{
    system_init();
    proto_install(slip_rx);
    ACME_UART0->CTRL = 1U; /* receive interrupt on */
    NVIC_EnableIRQ(UART0_IRQn);

    for (;;) {
        if (g_rxBytes > 1000000U) {
            uart_send_byte('!');
        }
        __WFI();
    }
}
