/* Zephyr: one error counter for the whole board, bumped by the UART0 ISR on a framing error and
 * by the sensor thread when an ADC conversion times out. */
#include "zephyr_mini.h"

#define ADC_TIMEOUT 0xFFFFFFFFU

struct board_stats {
    volatile uint32_t samples; /* sensor thread only */
    volatile uint32_t errors;  /* both */
};

static struct board_stats stats;

static void uart0_isr(const void *arg)
{
    (void)arg;
    if (uart_read_byte() == 0xFFU) {
        stats.errors++;
    }
}

static struct k_thread thread_data;
static K_THREAD_STACK_DEFINE(thread_stack, 1024);

static void sensor_thread(void *p1, void *p2, void *p3)
{
    (void)p1;
    (void)p2;
    (void)p3;
    for (;;) {
        k_msleep(10);
        if (adc_read_result() == ADC_TIMEOUT) {
            stats.errors++;
        } else {
            stats.samples++;
        }
        if ((stats.samples % 1000U) == 0U) {
            printk("%u samples, %u errors\n", stats.samples, stats.errors);
        }
    }
}

int main(void)
{
    IRQ_CONNECT(UART0_IRQ, 2, uart0_isr, NULL, 0);
    (void)k_thread_create(&thread_data, thread_stack, K_THREAD_STACK_SIZEOF(thread_stack), sensor_thread,
                          NULL, NULL, NULL, 5, 0, K_NO_WAIT);
    irq_enable(UART0_IRQ);
    return 0;
}
