/* Water flow meter on an STM32F407 with libopencm3: the turbine's reed contact pulls PA0 low once
 * per 2.25 ml; EXTI0 counts the pulses and main converts them to litres once a second. */
#include "locm3.h"

#define ML_PER_PULSE_X100 225U

static volatile uint32_t g_pulses;
static uint32_t s_total_ml_x100;
static volatile uint32_t g_seconds;

void exti0_isr(void)
{
    exti_reset_request(EXTI0);
    g_pulses++;
}

void sys_tick_handler(void)
{
    static uint32_t ms;
    if (++ms == 1000U) {
        ms = 0U;
        g_seconds++;
    }
}

int main(void)
{
    uint32_t last_second = 0U;
    clock_setup();
    exti_enable_request(EXTI0);
    nvic_set_priority(NVIC_EXTI0_IRQ, 0x40);
    nvic_enable_irq(NVIC_EXTI0_IRQ);
    for (;;) {
        if (g_seconds == last_second) {
            continue;
        }
        last_second = g_seconds;
        uint32_t n;
        CM_ATOMIC_BLOCK() {
            n = g_pulses;
            g_pulses -= n;
        }
        s_total_ml_x100 += n * ML_PER_PULSE_X100;
        console_printf("flow %lu ml/s total %lu ml\n", (unsigned long)(n * ML_PER_PULSE_X100 / 100U),
                       (unsigned long)(s_total_ml_x100 / 100U));
    }
    return 0;
}
