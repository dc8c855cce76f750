/* Status frames on SCI0 with the FSP r_sci_uart driver (RA6M4); the driver's TEI interrupt calls
 * uart_cb with UART_EVENT_TX_COMPLETE when the last byte has left the shift register. */
#include "ra_fsp.h"

static sci_uart_instance_ctrl_t g_uart0_ctrl;
static volatile bool g_tx_busy;
static volatile uint32_t g_rx_errors;

static void uart_cb(uart_callback_args_t *p_args)
{
    switch (p_args->event) {
    case UART_EVENT_TX_COMPLETE:
        g_tx_busy = false;
        break;
    case UART_EVENT_ERR_OVERFLOW:
    case UART_EVENT_ERR_FRAMING:
        g_rx_errors++;
        break;
    default:
        break;
    }
}

static const uart_cfg_t g_uart0_cfg = {
    .channel = 0U, .rxi_ipl = 12U, .txi_ipl = 12U, .tei_ipl = 12U, .eri_ipl = 12U,
    .p_callback = uart_cb, .p_context = NULL, .p_extend = NULL,
};

extern uint32_t status_build(uint8_t *out);

static void status_send(void)
{
    static uint8_t frame[16];
    while (g_tx_busy) {
    }
    uint32_t len = status_build(frame);
    (void)R_SCI_UART_Write(&g_uart0_ctrl, frame, len);
    g_tx_busy = true;
}

int main(void)
{
    (void)R_SCI_UART_Open(&g_uart0_ctrl, &g_uart0_cfg);
    for (;;) {
        status_send();
        R_BSP_SoftwareDelay(5U, BSP_DELAY_UNITS_MILLISECONDS);
    }
}
