/* LED driver current loop (PSoC 6, PDL): main computes the next PWM compare value; the TCPWM
 * counter-0 terminal-count interrupt loads it into the PWM at the start of each period. */
#include "psoc6_pdl.h"

#define PWM_CNT 0U
#define DUTY_MAX 900U

static volatile uint32_t g_duty;

static void pwm_tc_isr(void)
{
    Cy_TCPWM_ClearInterrupt(TCPWM0, PWM_CNT, CY_TCPWM_INT_ON_TC);
    Cy_TCPWM_PWM_SetCompare0(TCPWM0, PWM_CNT, g_duty);
}

static const cy_stc_sysint_t pwm_irq_cfg = {
    .intrSrc = tcpwm_0_interrupts_0_IRQn,
    .intrPriority = 3U,
};

extern uint32_t current_setpoint(void);
extern int32_t current_error(void);

int main(void)
{
    (void)cybsp_init();
    (void)Cy_SysInt_Init(&pwm_irq_cfg, pwm_tc_isr);
    NVIC_EnableIRQ(pwm_irq_cfg.intrSrc);
    Cy_TCPWM_SetInterruptMask(TCPWM0, PWM_CNT, CY_TCPWM_INT_ON_TC);
    Cy_TCPWM_Enable_Multiple(TCPWM0, 1U << PWM_CNT);
    Cy_TCPWM_TriggerStart(TCPWM0, 1U << PWM_CNT);
    for (;;) {
        uint32_t duty = current_setpoint();
        duty += (uint32_t)(current_error() / 4);
        if (duty > DUTY_MAX) {
            duty = DUTY_MAX;
        }
        g_duty = duty;
        Cy_SysLib_Delay(1U);
    }
}
