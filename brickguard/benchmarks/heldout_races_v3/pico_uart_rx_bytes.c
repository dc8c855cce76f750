/* GNSS receiver on UART0 (RP2040, pico-sdk): the handler counts bytes into a software FIFO that
 * main drains in bursts. */
#include "pico_sdk.h"

#define FIFO_SIZE 256u

static volatile uint8_t s_fifo[FIFO_SIZE];
static volatile uint32_t s_wr;
static volatile uint32_t s_rx_pending;
static volatile uint32_t s_rx_dropped;

static void on_uart_rx(void)
{
    while (uart_is_readable(uart0)) {
        char c = uart_getc(uart0);
        if (s_rx_pending < FIFO_SIZE) {
            s_fifo[s_wr] = (uint8_t)c;
            s_wr = (s_wr + 1u) % FIFO_SIZE;
            s_rx_pending++;
        } else {
            s_rx_dropped++;
        }
    }
}

extern void nmea_feed(const volatile uint8_t *fifo, uint32_t start, uint32_t len, uint32_t size);

int main(void)
{
    uint32_t rd = 0u;
    stdio_init_all();
    uart_init(uart0, 9600u);
    irq_set_exclusive_handler(UART0_IRQ, on_uart_rx);
    irq_set_enabled(UART0_IRQ, true);
    uart_set_irq_enables(uart0, true, false);
    for (;;) {
        uint32_t n = s_rx_pending;
        if (n == 0u) {
            sleep_ms(10u);
            continue;
        }
        nmea_feed(s_fifo, rd, n, FIFO_SIZE);
        rd = (rd + n) % FIFO_SIZE;
        s_rx_pending -= n;
    }
}
