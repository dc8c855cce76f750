/* PWM input meter: TC0 channel 0 in capture mode loads RA on the rising and RB on the falling
 * edge; the handler publishes the period and the high time of one cycle; main prints the duty. */
#include "asf3_sam3x.h"

struct pwm_meas {
    uint32_t period;
    uint32_t high;
};

static volatile struct pwm_meas g_pwm;
static volatile uint32_t g_captures;
static uint32_t s_last_rise;             /* TC0_Handler only */

void TC0_Handler(void)
{
    uint32_t sr = tc_get_status(TC0, 0U);
    if (sr & TC_SR_LDRBS) {
        uint32_t rise = tc_read_ra(TC0, 0U);
        uint32_t fall = tc_read_rb(TC0, 0U);
        g_pwm.period = rise - s_last_rise;
        g_pwm.high = fall - rise;
        s_last_rise = rise;
        g_captures++;
    }
}

int main(void)
{
    sysclk_init();
    board_init();
    pmc_enable_periph_clk(ID_TC0);
    tc_init(TC0, 0U, 0U);
    tc_enable_interrupt(TC0, 0U, TC_SR_LDRBS);
    NVIC_SetPriority(TC0_IRQn, 4U);
    NVIC_EnableIRQ(TC0_IRQn);
    tc_start(TC0, 0U);
    for (;;) {
        uint32_t per, high;
        irqflags_t f = cpu_irq_save();
        per = g_pwm.period;
        high = g_pwm.high;
        cpu_irq_restore(f);
        if (per != 0U) {
            printf_uart("duty %lu permille (%lu)\n", (unsigned long)((high * 1000U) / per),
                        (unsigned long)g_captures);
        }
    }
}
