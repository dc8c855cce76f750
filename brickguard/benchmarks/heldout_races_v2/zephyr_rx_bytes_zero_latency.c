/* Zephyr: the UART0 ISR counts received bytes and is connected as a zero-latency interrupt
 * (the bytes must be drained within a few microseconds); the stats thread reads and resets the
 * count once a second inside irq_lock(). */
#include "zephyr_mini.h"

static uint32_t rx_bytes;
static uint32_t rx_total; /* stats thread only */

static void uart0_isr(const void *arg)
{
    (void)arg;
    (void)uart_read_byte();
    rx_bytes++;
}

static struct k_thread thread_data;
static K_THREAD_STACK_DEFINE(thread_stack, 1024);

static void stats_thread(void *p1, void *p2, void *p3)
{
    (void)p1;
    (void)p2;
    (void)p3;
    for (;;) {
        k_msleep(1000);
        unsigned int key = irq_lock();
        uint32_t n = rx_bytes;
        rx_bytes = 0U;
        irq_unlock(key);
        rx_total += n;
        printk("rx %u/s, %u total\n", n, rx_total);
    }
}

int main(void)
{
    IRQ_CONNECT(UART0_IRQ, 0, uart0_isr, NULL, IRQ_ZERO_LATENCY);
    (void)k_thread_create(&thread_data, thread_stack, K_THREAD_STACK_SIZEOF(thread_stack), stats_thread,
                          NULL, NULL, NULL, 5, 0, K_NO_WAIT);
    irq_enable(UART0_IRQ);
    return 0;
}
