/* Latency monitor: the TIM3 capture interrupt adds each measured latency to a running sum; every
 * second the app takes the count and the sum, resets both, and prints the mean. */
#include "nuttx.h"

struct lat_acc {
    uint32_t count;
    uint32_t sum;
};

static volatile struct lat_acc g_meas;

static int tim3_isr(int irq, FAR void *context, FAR void *arg)
{
    (void)irq;
    (void)context;
    (void)arg;
    putreg32(0, STM32_TIM3_SR);
    g_meas.sum += getreg32(STM32_TIM3_CCR1);
    g_meas.count++;
    return OK;
}

int main(int argc, char *argv[])
{
    (void)argc;
    (void)argv;
    (void)irq_attach(STM32_IRQ_TIM3, tim3_isr, NULL);
    (void)up_prioritize_irq(STM32_IRQ_TIM3, NVIC_SYSH_PRIORITY_DEFAULT);
    up_enable_irq(STM32_IRQ_TIM3);
    for (;;) {
        usleep(1000000U);
        irqstate_t flags = enter_critical_section();
        uint32_t n = g_meas.count;
        uint32_t s = g_meas.sum;
        g_meas.count = 0U;
        g_meas.sum = 0U;
        leave_critical_section(flags);
        printf_stats(n, n != 0U ? s / n : 0U);
    }
    return 0;
}
