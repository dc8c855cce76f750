/* Modbus bridge statistics on an STM32F103 with Keil RTX4: the USART1 handler counts received
 * bytes and wakes the activity task; the statistics task publishes and clears the counter every
 * second with interrupts disabled. */
#include "RTL.h"

#define EVT_RX 0x0001U

static volatile U32 g_rx_count;
static OS_TID s_activity_tid;
static U32 s_rate;

void USART1_IRQHandler(void)
{
    if ((USART1_SR & USART_SR_RXNE) != 0U) {
        (void)USART1_DR;
        g_rx_count++;
        isr_evt_set(EVT_RX, s_activity_tid);
    }
}

__task void activity_task(void)
{
    for (;;) {
        (void)os_evt_wait_or(EVT_RX, 0xFFFFU);
        modbus_write_reg(100U, 1U); /* link activity indicator */
    }
}

__task void stats_task(void)
{
    os_itv_set(1000U);
    for (;;) {
        os_itv_wait();
        __disable_irq();
        s_rate = g_rx_count;
        g_rx_count = 0U;
        __enable_irq();
        modbus_write_reg(101U, (U16)s_rate);
    }
}

__task void init_task(void)
{
    s_activity_tid = os_tsk_create(activity_task, 3);
    (void)os_tsk_create(stats_task, 2);
    NVIC_SetPriority(USART1_IRQn, 5U);
    NVIC_EnableIRQ(USART1_IRQn);
    os_tsk_delete_self();
}

int main(void)
{
    board_init();
    os_sys_init(init_task);
    for (;;) {
    }
}
