/* CPU load estimator: TIM3 samples the busy counter every millisecond and TIM4 every 10 ms adds a
 * drift correction; both update the same load figure, which the app prints. */
#include "nuttx.h"

static volatile uint32_t g_load_acc;
static uint32_t s_tim4_ticks;

static int tim3_isr(int irq, FAR void *context, FAR void *arg)
{
    (void)irq;
    (void)context;
    (void)arg;
    putreg32(0, STM32_TIM3_SR);
    g_load_acc += load_sample();
    return OK;
}

static int tim4_isr(int irq, FAR void *context, FAR void *arg)
{
    (void)irq;
    (void)context;
    (void)arg;
    putreg32(0, STM32_TIM4_SR);
    s_tim4_ticks++;
    g_load_acc -= g_load_acc / 64U;
    return OK;
}

int main(int argc, char *argv[])
{
    (void)argc;
    (void)argv;
    (void)irq_attach(STM32_IRQ_TIM3, tim3_isr, NULL);
    (void)irq_attach(STM32_IRQ_TIM4, tim4_isr, NULL);
    (void)up_prioritize_irq(STM32_IRQ_TIM3, NVIC_SYSH_PRIORITY_DEFAULT);
    (void)up_prioritize_irq(STM32_IRQ_TIM4, NVIC_SYSH_PRIORITY_DEFAULT);
    up_enable_irq(STM32_IRQ_TIM3);
    up_enable_irq(STM32_IRQ_TIM4);
    for (;;) {
        usleep(1000000U);
        printf_stats(g_load_acc / 64U, 0U);
    }
    return 0;
}
