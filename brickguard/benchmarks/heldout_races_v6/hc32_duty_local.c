/* Heater PWM: TMR0 unit 1 (priority 8) recomputes the duty from the target every 10 ms; the ADC
 * end-of-conversion callback (priority 3) applies the duty at each current sample. */
#include "hc32_ddl.h"

#define DUTY_MAX 800U                    /* permille: the element's rating */

static volatile uint16_t g_target;       /* written by main */
static volatile uint16_t g_duty;
static volatile uint16_t g_current_raw;  /* written by the ADC callback */

static void TMR0_1_CmpA_IrqCallback(void)
{
    TMR0_ClearStatus(CM_TMR0_1, TMR0_FLAG_CMP_A);
    uint16_t d = (uint16_t)((g_target * 3U) / 2U);
    if (d > DUTY_MAX) {
        d = DUTY_MAX;
    }
    g_duty = d;
}

static void ADC1_EOCA_IrqCallback(void)
{
    ADC_ClearStatus(CM_ADC1, ADC_FLAG_EOCA);
    g_current_raw = ADC_GetValue(CM_ADC1, 0U);
    pwm_set_duty(g_duty);
}

static void irq_register(en_int_src_t src, IRQn_Type irq, func_ptr_t cb, uint32_t prio)
{
    stc_irq_signin_config_t cfg;
    cfg.enIntSrc = src;
    cfg.enIRQn = irq;
    cfg.pfnCallback = cb;
    (void)INTC_IrqSignIn(&cfg);
    NVIC_ClearPendingIRQ(irq);
    NVIC_SetPriority(irq, prio);
    NVIC_EnableIRQ(irq);
}

int main(void)
{
    board_init();
    irq_register(INT_SRC_TMR0_1_CMP_A, INT000_IRQn, TMR0_1_CmpA_IrqCallback, DDL_IRQ_PRIO_08);
    irq_register(INT_SRC_ADC1_EOCA, INT001_IRQn, ADC1_EOCA_IrqCallback, DDL_IRQ_PRIO_03);
    TMR0_Start(CM_TMR0_1, TMR0_CH_A);
    ADC_Start(CM_ADC1);
    for (;;) {
        g_target = (uint16_t)(g_current_raw > 3000U ? 300U : 700U);
        uart2_print("I=%u duty=%u\n", g_current_raw, g_duty);
    }
}
