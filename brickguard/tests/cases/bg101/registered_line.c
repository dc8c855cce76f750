/* A handler registered with its line (Zephyr's IRQ_CONNECT over irq_connect_dynamic(irq, prio,
   isr, arg, flags)): irq_disable(that line) masks it, irq_disable(another line) does not. */
#include "cmsis_stub.h"

#define TIMER1_IRQ 9U
#define UART0_IRQ 2U
int irq_connect_dynamic(unsigned int irq, unsigned int priority, void (*routine)(const void *),
                        const void *parameter, uint32_t flags);
#define IRQ_CONNECT(irq_p, prio_p, isr_p, isr_param_p, flags_p) \
    irq_connect_dynamic((irq_p), (prio_p), (void (*)(const void *))(isr_p), (isr_param_p), (flags_p))
void irq_enable(unsigned int irq);
void irq_disable(unsigned int irq);

struct xyz { int16_t x, y, z; };
volatile struct xyz latest, sample;

static void on_timer(const void *arg)
{
    (void)arg;
    latest.x = 1;
    sample.x = 1;
}

static void publisher(void)
{
    struct xyz a, b;
    irq_disable(TIMER1_IRQ);
    a = latest;        /* its line masked */
    irq_enable(TIMER1_IRQ);
    irq_disable(UART0_IRQ);
    b = sample;        /* expect: BG103 */
    irq_enable(UART0_IRQ);
    process((const uint8_t *)&a, (uint32_t)b.x);
}

int main(void)
{
    IRQ_CONNECT(TIMER1_IRQ, 1, on_timer, NULL, 0);
    irq_enable(TIMER1_IRQ);
    for (;;) {
        publisher();
    }
}
