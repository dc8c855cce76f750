/* Shell input: the UART receive callback stores each byte in a ring and counts it; main drains
 * the ring and feeds the shell. */
#include "riot.h"

#define RING_SIZE 64U

static uint8_t s_ring[RING_SIZE];
static uint32_t s_wr;
static uint32_t s_rd;
static volatile uint32_t g_count;
static uint32_t s_dropped;

static void rx_cb(void *arg, uint8_t data)
{
    (void)arg;
    if (g_count < RING_SIZE) {
        s_ring[s_wr] = data;
        s_wr = (s_wr + 1U) % RING_SIZE;
        g_count++;
    } else {
        s_dropped++;
    }
}

int main(void)
{
    uart_init(UART_DEV(0), 115200U, rx_cb, NULL);
    for (;;) {
        while (g_count != 0U) {
            uint8_t c = s_ring[s_rd];
            s_rd = (s_rd + 1U) % RING_SIZE;
            unsigned state = irq_disable();
            g_count--;
            irq_restore(state);
            shell_handle(c);
        }
        ztimer_sleep(ZTIMER_MSEC, 5U);
    }
    return 0;
}
