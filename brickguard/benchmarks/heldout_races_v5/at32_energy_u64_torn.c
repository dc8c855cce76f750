/* Energy meter on an AT32F403A (Artery firmware library): TMR4 integrates power into a 64-bit
 * milliwatt-second total every millisecond; main shows the total in watt-hours on the display
 * and answers the USART1 console. */
#include "at32f403a_407.h"

static volatile uint64_t g_energy_mws;
static volatile uint32_t g_power_mw;

void TMR4_GLOBAL_IRQHandler(void)
{
    tmr_flag_clear(TMR4, TMR_OVF_FLAG);
    uint32_t p = (uint32_t)adc_ordinary_conversion_data_get(NULL) * 1200U;
    g_power_mw = p;
    g_energy_mws += p / 1000U;
}

static uint64_t energy_read(void)
{
    return g_energy_mws;
}

int main(void)
{
    system_clock_config();
    uart_print_init(115200U);
    nvic_priority_group_config(NVIC_PRIORITY_GROUP_4);
    nvic_irq_enable(TMR4_GLOBAL_IRQn, 3, 0);
    tmr_interrupt_enable(TMR4, TMR_OVF_INT, TRUE);
    tmr_counter_enable(TMR4, TRUE);
    for (;;) {
        uint64_t e = energy_read();
        printf("%lu mW, %lu Wh\n", (unsigned long)g_power_mw, (unsigned long)(e / 3600000ULL));
    }
}
