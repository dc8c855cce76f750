/* Bare CMSIS: byte counters kept through a helper that takes a pointer. The UART0 handler counts
 * received bytes; the main loop counts the bytes it handles in the counter chosen by the frame
 * kind: echoed bytes in tx, bytes it receives by polling in rx as well. */
#include "cmsis_dev.h"

typedef struct {
    uint32_t rx;
    uint32_t tx;
} byte_stats_t;

static volatile byte_stats_t g_stats;

static void bump(volatile uint32_t *counter)
{
    *counter = *counter + 1U;
}

void UART0_IRQHandler(void)
{
    (void)ACME_UART0->DATA;
    bump(&g_stats.rx);
}

int main(void)
{
    system_init();
    NVIC_EnableIRQ(UART0_IRQn);

    for (;;) {
        uint32_t polled = read_sensor(); /* polled link: nonzero when a byte came in */
        volatile uint32_t *which = (polled != 0U) ? &g_stats.rx : &g_stats.tx;
        if (polled == 0U) {
            uart_send_byte('.');
        }
        bump(which);
    }
}
