/* Sensor window: the ADC callback appends each sample to the window, TMR0 unit 2 closes the window
 * every 100 ms (both at priority 5, so neither interrupts the other); main shows the latest sample. */
#include "hc32_ddl.h"

#define WIN 128U

static volatile uint16_t g_win[WIN];
static volatile uint32_t g_win_n;
static volatile uint32_t g_windows;      /* written by the timer callback */

static void ADC1_EOCA_IrqCallback(void)
{
    uint16_t v = ADC_GetValue(CM_ADC1, 2U);
    ADC_ClearStatus(CM_ADC1, ADC_FLAG_EOCA);
    if (g_win_n < WIN) {
        g_win[g_win_n] = v;
        g_win_n++;
    }
}

static void TMR0_2_CmpA_IrqCallback(void)
{
    TMR0_ClearStatus(CM_TMR0_2, TMR0_FLAG_CMP_A);
    g_win_n = 0U;
    g_windows++;
}

int main(void)
{
    stc_irq_signin_config_t cfg = { INT_SRC_ADC1_EOCA, INT003_IRQn, ADC1_EOCA_IrqCallback };
    board_init();
    (void)INTC_IrqSignIn(&cfg);
    NVIC_SetPriority(INT003_IRQn, DDL_IRQ_PRIO_05);
    NVIC_EnableIRQ(INT003_IRQn);
    cfg.enIntSrc = INT_SRC_TMR0_2_CMP_A;
    cfg.enIRQn = INT001_IRQn;
    cfg.pfnCallback = TMR0_2_CmpA_IrqCallback;
    (void)INTC_IrqSignIn(&cfg);
    NVIC_SetPriority(INT001_IRQn, DDL_IRQ_PRIO_05);
    NVIC_EnableIRQ(INT001_IRQn);
    TMR0_Start(CM_TMR0_2, TMR0_CH_A);
    ADC_Start(CM_ADC1);
    for (;;) {
        if (g_win_n > 0U) {
            uint16_t last = g_win[g_win_n - 1U];
            uart2_print("last %u (window %lu)\n", last, (unsigned long)g_windows);
        }
    }
}
