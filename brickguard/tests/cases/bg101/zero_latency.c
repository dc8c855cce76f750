/* Zephyr's zero-latency interrupts (IRQ_CONNECT(..., IRQ_ZERO_LATENCY)): irq_lock() raises
   BASEPRI and never masks them; disabling interrupts outright does. An ordinary interrupt is
   masked by irq_lock(). */
#include "cmsis_stub.h"

#define UART0_IRQ 2U
#define ADC_IRQ 24U
#define IRQ_ZERO_LATENCY (1U << 1)
int irq_connect_dynamic(unsigned int irq, unsigned int priority, void (*routine)(const void *),
                        const void *parameter, uint32_t flags);
#define IRQ_CONNECT(irq_p, prio_p, isr_p, isr_param_p, flags_p) \
    irq_connect_dynamic((irq_p), (prio_p), (void (*)(const void *))(isr_p), (isr_param_p), (flags_p))
unsigned int irq_lock(void);
void irq_unlock(unsigned int key);
void irq_enable(unsigned int irq);

volatile uint32_t rx_bytes, rx_errors, samples;

static void on_uart(const void *arg)
{
    (void)arg;
    rx_bytes++;
    rx_errors++;
}

static void on_adc(const void *arg)
{
    (void)arg;
    samples++;
}

int main(void)
{
    IRQ_CONNECT(UART0_IRQ, 0, on_uart, NULL, IRQ_ZERO_LATENCY);
    IRQ_CONNECT(ADC_IRQ, 2, on_adc, NULL, 0);
    irq_enable(UART0_IRQ);
    irq_enable(ADC_IRQ);
    for (;;) {
        unsigned int key = irq_lock();
        uint32_t n = rx_bytes;
        rx_bytes = 0u;               /* expect: BG101 */
        uint32_t s = samples;
        samples = 0u;                /* on_adc is masked */
        irq_unlock(key);
        __disable_irq();
        uint32_t e = rx_errors;
        rx_errors = 0u;              /* PRIMASK masks zero-latency ones too */
        __enable_irq();
        process((const uint8_t *)&n, s + e);
    }
}
