/* Handlers attached to a vector by number and given priorities by the same number (NuttX's
   irq_attach / up_prioritize_irq shape, neither with a body here): the number links each
   handler to its priority, so the more urgent one preempts the other. */
#include <stdint.h>

#define IRQ_BASE 16
#define IRQ_ADC (IRQ_BASE + 18)
#define IRQ_PWM (IRQ_BASE + 25)
#define IRQ_SPI (IRQ_BASE + 35)
#define PRIO_DEFAULT 0x80
#define PRIO_STEP 0x10

typedef int (*isr_t)(int irq, void *context, void *arg);
int irq_attach(int irq, isr_t isr, void *arg);
int up_prioritize_irq(int irq, int priority);
void up_enable_irq(int irq);

volatile uint32_t duty, spi_bytes;

static int adc_isr(int irq, void *context, void *arg)
{
    (void)irq; (void)context; (void)arg;
    duty += 4u;                  /* expect: BG102 */
    spi_bytes += 1u;             /* SPI runs at the same level: it cannot preempt */
    return 0;
}

static int pwm_isr(int irq, void *context, void *arg)
{
    (void)irq; (void)context; (void)arg;
    duty -= duty / 8u;
    return 0;
}

static int spi_isr(int irq, void *context, void *arg)
{
    (void)irq; (void)context; (void)arg;
    spi_bytes -= 1u;
    return 0;
}

int main(void)
{
    (void)irq_attach(IRQ_ADC, adc_isr, 0);
    (void)irq_attach(IRQ_PWM, pwm_isr, 0);
    (void)irq_attach(IRQ_SPI, spi_isr, 0);
    (void)up_prioritize_irq(IRQ_ADC, PRIO_DEFAULT);
    (void)up_prioritize_irq(IRQ_PWM, PRIO_DEFAULT - PRIO_STEP);
    (void)up_prioritize_irq(IRQ_SPI, PRIO_DEFAULT);
    up_enable_irq(IRQ_ADC);
    up_enable_irq(IRQ_PWM);
    up_enable_irq(IRQ_SPI);
    for (;;) {
    }
}
