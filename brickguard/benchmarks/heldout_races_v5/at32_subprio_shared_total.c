/* Conveyor counter on an AT32F403A (Artery firmware library), priority group 2 (two pre-emption
 * bits, two sub-priority bits). EXINT0 (a box passes the light barrier) and TMR3 (a box is
 * rejected by the scale) both adjust the shift's net total with a plain read-modify-write. They
 * have different sub-priorities but the same pre-emption priority, so neither preempts the other;
 * main only prints the total. */
#include "at32f403a_407.h"

static volatile int32_t g_net_boxes;
static volatile uint32_t g_rejects;

void EXINT0_IRQHandler(void)
{
    exint_flag_clear(EXINT_LINE_0);
    g_net_boxes += 1;
}

void TMR3_GLOBAL_IRQHandler(void)
{
    tmr_flag_clear(TMR3, TMR_OVF_FLAG);
    g_rejects++;
    g_net_boxes -= 1;
}

int main(void)
{
    system_clock_config();
    uart_print_init(115200U);
    nvic_priority_group_config(NVIC_PRIORITY_GROUP_2);
    nvic_irq_enable(EXINT0_IRQn, 1, 0);
    nvic_irq_enable(TMR3_GLOBAL_IRQn, 1, 3);
    tmr_interrupt_enable(TMR3, TMR_OVF_INT, TRUE);
    for (;;) {
        printf("net %ld rejects %lu\n", (long)g_net_boxes, (unsigned long)g_rejects);
    }
}
