/* Receive budget for a half-duplex bus (GD32F30x): USART0 spends one credit per received byte,
 * TIMER1 refills credits every millisecond. Priority group 2 bits pre-emption, 2 bits sub. */
#include "gd32f30x.h"

#define BUDGET_MAX 64U

static volatile uint32_t g_rx_budget = BUDGET_MAX;
static volatile uint32_t g_rx_throttled;

void USART0_IRQHandler(void)
{
    if (usart_interrupt_flag_get(USART0, USART_INT_FLAG_RBNE) != RESET) {
        (void)usart_data_receive(USART0);
        if (g_rx_budget > 0U) {
            g_rx_budget--;
        } else {
            g_rx_throttled++;
        }
    }
}

void TIMER1_IRQHandler(void)
{
    if (timer_interrupt_flag_get(TIMER1, TIMER_INT_FLAG_UP) != RESET) {
        timer_interrupt_flag_clear(TIMER1, TIMER_INT_FLAG_UP);
        uint32_t b = g_rx_budget + 8U;
        g_rx_budget = (b > BUDGET_MAX) ? BUDGET_MAX : b;
    }
}

extern void bus_report(uint32_t throttled);

int main(void)
{
    systick_config();
    nvic_priority_group_set(NVIC_PRIGROUP_PRE2_SUB2);
    nvic_irq_enable(TIMER1_IRQn, 2U, 0U);
    nvic_irq_enable(USART0_IRQn, 1U, 0U);
    timer_interrupt_enable(TIMER1, TIMER_INT_UP);
    timer_enable(TIMER1);
    usart_interrupt_enable(USART0, USART_INT_RBNE);
    for (;;) {
        delay_1ms(1000U);
        bus_report(g_rx_throttled);
    }
}
