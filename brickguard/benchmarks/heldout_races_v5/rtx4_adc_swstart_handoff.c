/* Three-phase current monitor on an STM32F103 with Keil RTX4: the check task starts each conversion
 * of the ADC's injected group (phases A, B, C and the DC link) by software; the end-of-injected-conversion handler
 * stores the four results and signals the check task, which tests that the phase currents sum to
 * zero (a ground fault otherwise). */
#include "RTL.h"

#define EVT_ADC 0x0001U

struct phases {
    U32 a;
    U32 b;
    U32 c;
    U32 dc;
};

static struct phases g_meas;
static OS_TID s_check_tid;
static U32 s_ground_faults;

void ADC1_2_IRQHandler(void)
{
    ADC1_SR = ~ADC_SR_JEOC;
    g_meas.a = ADC1_JDR1;
    g_meas.b = ADC1_JDR2;
    g_meas.c = ADC1_JDR3;
    g_meas.dc = ADC1_JDR4;
    isr_evt_set(EVT_ADC, s_check_tid);
}

__task void check_task(void)
{
    for (;;) {
        (void)os_evt_wait_or(EVT_ADC, 0xFFFFU);
        struct phases m = g_meas;
        ADC1_CR2 |= ADC_CR2_JSWSTART; /* the next conversion only after the copy */
        S32 sum = (S32)m.a + (S32)m.b + (S32)m.c - 3 * 2048;
        if (sum > 200 || sum < -200) {
            s_ground_faults++;
            lcd_print(1, "ground fault %ld (dc %lu)", (long)sum, (unsigned long)m.dc);
        }
    }
}

__task void init_task(void)
{
    s_check_tid = os_tsk_create(check_task, 4);
    NVIC_SetPriority(ADC1_2_IRQn, 2U);
    NVIC_EnableIRQ(ADC1_2_IRQn);
    ADC1_CR2 |= ADC_CR2_JSWSTART; /* first conversion; check_task starts each next one */
    os_tsk_delete_self();
}

int main(void)
{
    board_init();
    os_sys_init(init_task);
    for (;;) {
    }
}
