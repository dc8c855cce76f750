/* Leading-edge dimmer on an AT32F403A (Artery firmware library): EXINT0 sees the mains zero
 * crossing and TMR2 fires the triac a programmable number of 50 us steps later; every firing
 * consumes one step of a fade that main tops up from the wall slider. main masks the timer's
 * interrupt line while it adjusts the fade. */
#include "at32f403a_407.h"

static volatile uint32_t g_fade_steps;
static volatile uint32_t g_zero_crossings;
static volatile uint16_t g_delay_steps = 100U;

void EXINT0_IRQHandler(void)
{
    exint_flag_clear(EXINT_LINE_0);
    g_zero_crossings++;
    tmr_counter_enable(TMR2, TRUE);
}

void TMR2_GLOBAL_IRQHandler(void)
{
    tmr_flag_clear(TMR2, TMR_OVF_FLAG);
    tmr_counter_enable(TMR2, FALSE);
    if (g_fade_steps != 0U) {
        g_fade_steps--;
        g_delay_steps = (uint16_t)(g_delay_steps - 1U);
    }
}

int main(void)
{
    system_clock_config();
    nvic_priority_group_config(NVIC_PRIORITY_GROUP_4);
    nvic_irq_enable(EXINT0_IRQn, 1, 0);
    nvic_irq_enable(TMR2_GLOBAL_IRQn, 2, 0);
    tmr_interrupt_enable(TMR2, TMR_OVF_INT, TRUE);
    for (;;) {
        uint16_t slider = adc_ordinary_conversion_data_get(NULL);
        uint32_t wanted = slider / 64U;
        nvic_irq_disable(TMR2_GLOBAL_IRQn);
        if (g_fade_steps < wanted) {
            g_fade_steps += wanted - g_fade_steps;
        }
        nvic_irq_enable(TMR2_GLOBAL_IRQn, 2, 0);
    }
}
