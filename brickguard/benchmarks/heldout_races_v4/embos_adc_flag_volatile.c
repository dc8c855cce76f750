/* Valve controller: the control task starts one ADC conversion of the pressure sensor, waits for
 * the ADC0 interrupt to deliver the result, and sets the valve from it. */
#include "RTOS.h"

static OS_TASK s_tcb_ctrl;
static OS_U32 s_stack_ctrl[160];
static volatile bool s_adc_done;
static volatile OS_U32 s_adc_value;

void ADC0_IRQHandler(void)
{
    OS_INT_Enter();
    s_adc_value = ADC0->R[0];
    s_adc_done = true;
    OS_INT_Leave();
}

static OS_U32 pressure_sample(void)
{
    s_adc_done = false;
    ADC0->SC1[0] = 0x40U | 12U;
    while (!s_adc_done) {
    }
    return s_adc_value;
}

static void ctrl_task(void)
{
    for (;;) {
        OS_U32 raw = pressure_sample();
        valve_set(raw > 3000U ? 0U : (3000U - raw) / 3U);
        OS_TASK_Delay(10U);
    }
}

int main(void)
{
    OS_Init();
    OS_InitHW();
    ADC0->CFG1 = 0x0CU;
    NVIC_SetPriority(ADC0_IRQn, 11U);
    NVIC_EnableIRQ(ADC0_IRQn);
    OS_TASK_CREATE(&s_tcb_ctrl, "Ctrl", 80U, ctrl_task, s_stack_ctrl);
    OS_Start();
    return 0;
}
