/* Buzzer tone: the tone task writes a new period and duty pair with the kernel's critical
 * section; the TIM1 update ISR loads the pair into the timer at each period boundary. */
#include "ucos3.h"

struct pwm_pair {
    uint32_t period;
    uint32_t duty;
};

static OS_TCB s_tone_tcb;
static CPU_STK s_tone_stk[192];
static volatile struct pwm_pair g_pwm = { 1000U, 500U };

void TIM1_UP_TIM10_IRQHandler(void)
{
    TIM1->SR = 0U;
    TIM1->ARR = g_pwm.period;
    TIM1->CCR1 = g_pwm.duty;
}

static void tone_task(void *p_arg)
{
    OS_ERR err;
    CPU_SR_ALLOC();
    (void)p_arg;
    for (;;) {
        uint32_t period = period_for_freq(freq_request());
        CPU_CRITICAL_ENTER();
        g_pwm.period = period;
        g_pwm.duty = period / 2U;
        CPU_CRITICAL_EXIT();
        OSTimeDly(20U, OS_OPT_TIME_DLY, &err);
    }
}

int main(void)
{
    OS_ERR err;
    OSInit(&err);
    TIM1->DIER = 1U;
    NVIC_SetPriority(TIM1_UP_TIM10_IRQn, 2U);
    NVIC_EnableIRQ(TIM1_UP_TIM10_IRQn);
    TIM1->CR1 = 1U;
    OSTaskCreate(&s_tone_tcb, "tone", tone_task, NULL, 7U, s_tone_stk, 19U, 192U, 0U, 0U, NULL,
                 OS_OPT_TASK_STK_CHK, &err);
    OSStart(&err);
    return 0;
}
