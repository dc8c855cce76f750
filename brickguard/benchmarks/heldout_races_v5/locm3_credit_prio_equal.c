/* Telemetry pacing on an STM32F407 with libopencm3: TIM2 adds transmit credit every millisecond,
 * the USART2 handler spends one credit per byte it sends to the radio modem and stalls the queue
 * when none is left. Both handlers run at the same pre-emption level. */
#include "locm3.h"

#define CREDIT_PER_MS 12U
#define CREDIT_MAX 240U

uint8_t telemetry_next_byte(void);

static volatile uint32_t g_credit;
static volatile uint8_t s_txq[128];
static volatile uint8_t g_txq_head;
static volatile uint8_t g_txq_tail;

void tim2_isr(void)
{
    timer_clear_flag(TIM2, TIM_SR_UIF);
    if (g_credit < CREDIT_MAX) {
        g_credit += CREDIT_PER_MS;
    }
}

void usart2_isr(void)
{
    if (g_txq_tail == g_txq_head || g_credit == 0U) {
        return;
    }
    USART_DR(USART2) = s_txq[g_txq_tail];
    g_txq_tail = (uint8_t)((g_txq_tail + 1U) & 127U);
    g_credit -= 1U;
}

int main(void)
{
    clock_setup();
    nvic_set_priority(NVIC_TIM2_IRQ, 0x40);
    nvic_set_priority(NVIC_USART2_IRQ, 0x40);
    timer_enable_irq(TIM2, TIM_DIER_UIE);
    timer_enable_counter(TIM2);
    nvic_enable_irq(NVIC_TIM2_IRQ);
    nvic_enable_irq(NVIC_USART2_IRQ);
    for (;;) {
        uint8_t next = (uint8_t)((g_txq_head + 1U) & 127U);
        if (next != g_txq_tail) {
            s_txq[g_txq_head] = telemetry_next_byte();
            g_txq_head = next;
        }
    }
    return 0;
}
