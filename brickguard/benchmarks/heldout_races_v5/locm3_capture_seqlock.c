/* Pulse-width logger on an STM32F407 with libopencm3: the EXTI0 handler measures each pulse of
 * the sensor and publishes the pulse number and its width as a pair; main reads the pair without
 * masking interrupts, using a sequence number the handler makes odd while it writes and even
 * after: main retries until it saw the same even sequence before and after its copy. The
 * handler is the only writer and main never writes. */
#include "locm3.h"

static volatile uint32_t g_seq;
static volatile uint32_t g_pulse_no;
static volatile uint32_t g_pulse_width;
static uint32_t s_rise;

void exti0_isr(void)
{
    exti_reset_request(EXTI0);
    uint32_t now = timer_get_counter(TIM2);
    if (gpio_get(GPIOA, GPIO0) != 0U) {
        s_rise = now;
        return;
    }
    g_seq++;
    __asm__ volatile("dmb" : : : "memory");
    g_pulse_no = g_pulse_no + 1U;
    g_pulse_width = now - s_rise;
    __asm__ volatile("dmb" : : : "memory");
    g_seq++;
}

static void last_pulse(uint32_t *no, uint32_t *width)
{
    uint32_t s0, s1;
    do {
        s0 = g_seq;
        __asm__ volatile("dmb" : : : "memory");
        *no = g_pulse_no;
        *width = g_pulse_width;
        __asm__ volatile("dmb" : : : "memory");
        s1 = g_seq;
    } while ((s0 & 1U) != 0U || s0 != s1);
}

int main(void)
{
    uint32_t no, width, logged = 0U;
    clock_setup();
    timer_enable_counter(TIM2);
    nvic_set_priority(NVIC_EXTI0_IRQ, 0x20);
    nvic_enable_irq(NVIC_EXTI0_IRQ);
    exti_enable_request(EXTI0);
    for (;;) {
        last_pulse(&no, &width);
        if (no != logged) {
            logged = no;
            console_printf("pulse %lu: %lu ticks\n", (unsigned long)no, (unsigned long)width);
        }
    }
    return 0;
}
