/* Status beacon: main formats a status line and starts the UART transmit interrupt, which sends
 * the line byte by byte and clears the busy flag after the last one; main waits for the flag
 * before it reuses the buffer. */
#include "mbed_c.h"

static serial_t s_uart;
static char s_tx_buf[48];
static volatile size_t g_tx_len;
static volatile size_t g_tx_pos;
static volatile bool g_tx_busy;

static void uart_irq(uintptr_t context, SerialIrq event)
{
    (void)context;
    if (event != TxIrq) {
        return;
    }
    if (g_tx_pos < g_tx_len) {
        serial_putc(&s_uart, s_tx_buf[g_tx_pos]);
        g_tx_pos++;
    } else {
        serial_irq_set(&s_uart, TxIrq, 0U);
        g_tx_busy = false;
    }
}

int main(void)
{
    serial_init(&s_uart, PA_2, PA_3);
    serial_baud(&s_uart, 115200);
    serial_irq_handler(&s_uart, uart_irq, 0U);
    for (;;) {
        while (g_tx_busy) {
        }
        size_t n = format_status(s_tx_buf, sizeof(s_tx_buf));
        g_tx_pos = 0U;
        g_tx_busy = true;
        serial_irq_set(&s_uart, TxIrq, 1U);
        g_tx_len = n;
        wait_us(100000);
    }
}
