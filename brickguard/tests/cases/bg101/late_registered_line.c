/* A handler whose name says no line, attached to one by its registration (the line is the
   registration's first argument), is behind that line until a call that switches it on by
   name: state written before the switch-on is safe (``rx_port``), state written after it
   reaches a handler that may already run with a NULL pointer (``tx_port``). */
#include "cmsis_stub.h"

#define DEV_IRQ_RX 37
#define DEV_IRQ_TX 38
struct port { uint32_t count; };
typedef int (*dev_isr_t)(int irq, void *arg);
int dev_irq_hook(int irq, dev_isr_t isr, void *arg);
void dev_irq_enable(int irq);

static struct port s_rx, s_tx;
static struct port *volatile rx_port;
static struct port *volatile tx_port;

static int rx_isr(int irq, void *arg)
{
    (void)irq;
    (void)arg;
    rx_port->count++;
    return 0;
}

static int tx_isr(int irq, void *arg)
{
    (void)irq;
    (void)arg;
    tx_port->count++;
    return 0;
}

int main(void)
{
    rx_port = &s_rx;
    (void)dev_irq_hook(DEV_IRQ_RX, rx_isr, NULL);
    dev_irq_enable(DEV_IRQ_RX);
    (void)dev_irq_hook(DEV_IRQ_TX, tx_isr, NULL);
    dev_irq_enable(DEV_IRQ_TX);
    tx_port = &s_tx;                 /* expect: BG101 `tx_port` */
    for (;;) {
    }
}
