/* Fan controller on an APM32F103 (Geehy standard peripheral library): the fan's tacho output
 * (2 pulses per turn) interrupts on EINT0; the TMR2 update interrupt closes a 100 ms window,
 * turns the pulses into rpm and restarts the count. main regulates the PWM on s_rpm. */
#include "apm32f10x.h"

#define TARGET_RPM 2400U

static volatile uint32_t s_tacho_pulses;
static volatile uint32_t s_rpm;
static volatile uint32_t s_windows;
static uint32_t s_pwm = 500U;

void EINT0_IRQHandler(void)
{
    if (EINT_ReadIntFlag(EINT_LINE_0) != 0U) {
        EINT_ClearIntFlag(EINT_LINE_0);
        s_tacho_pulses++;
    }
}

void TMR2_IRQHandler(void)
{
    if (TMR_ReadIntFlag(TMR2, TMR_INT_UPDATE) != 0U) {
        TMR_ClearIntFlag(TMR2, TMR_INT_UPDATE);
        s_rpm = s_tacho_pulses * 300U;
        s_tacho_pulses = 0U;
        s_windows++;
    }
}

int main(void)
{
    APM_BOARD_Init();
    NVIC_ConfigPriorityGroup(NVIC_PRIORITY_GROUP_2);
    NVIC_EnableIRQRequest(EINT0_IRQn, 0U, 0U);
    NVIC_EnableIRQRequest(TMR2_IRQn, 2U, 0U);
    TMR_EnableInterrupt(TMR2, TMR_INT_UPDATE);
    TMR_Enable(TMR2);

    for (;;) {
        uint32_t rpm = s_rpm;
        if ((rpm < TARGET_RPM) && (s_pwm < 1000U)) {
            s_pwm++;
        } else if ((rpm > TARGET_RPM) && (s_pwm > 0U)) {
            s_pwm--;
        }
        TMR3->CC1 = s_pwm;
        printf("rpm %lu window %lu\r\n", (unsigned long)rpm, (unsigned long)s_windows);
        Delay_ms(100U);
    }
}
