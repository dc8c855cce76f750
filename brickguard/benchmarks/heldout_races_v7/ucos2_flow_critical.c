/* Liquid doser on an LPC1768 under uC/OS-II: the flow meter's pulses are counted by the TIMER1
 * capture ISR; the dosing task takes them in 10 ml portions and stops the pump at the target. The
 * display task shows the portions dosed. */
#include "ucos_ii.h"

#define PULSES_PER_10ML 46U
#define TARGET_10ML 50U

static OS_STK s_dose_stk[256];
static OS_STK s_disp_stk[256];
static volatile uint32_t s_pulses;       /* counted, not yet taken as portions */
static volatile uint32_t s_dosed_10ml;
static volatile uint32_t s_last_capture;

static void App_TMR1_ISR(void)
{
    OSIntEnter();
    LPC_TIM1->IR = 0x10U;
    s_last_capture = LPC_TIM1->CR0;
    s_pulses++;
    OSIntExit();
}

static void AppTaskDose(void *p_arg)
{
    OS_CPU_SR cpu_sr = 0U;
    (void)p_arg;
    LPC_TIM0->TCR = 1U;                  /* pump on */
    for (;;) {
        if (s_pulses >= PULSES_PER_10ML) {
            OS_ENTER_CRITICAL();
            s_pulses -= PULSES_PER_10ML;
            OS_EXIT_CRITICAL();
            s_dosed_10ml++;
        }
        if (s_dosed_10ml >= TARGET_10ML) {
            LPC_TIM0->TCR = 0U;          /* pump off */
        }
        OSTimeDly(20U);
    }
}

static void AppTaskDisplay(void *p_arg)
{
    (void)p_arg;
    for (;;) {
        APP_TRACE("dosed %lu0 ml, capture %lu\n", (unsigned long)s_dosed_10ml,
                  (unsigned long)s_last_capture);
        OSTimeDlyHMSM(0U, 0U, 0U, 500U);
    }
}

int main(void)
{
    BSP_Init();
    OSInit();
    BSP_IntVectSet(BSP_INT_ID_TMR1, App_TMR1_ISR);
    BSP_IntPrioSet(BSP_INT_ID_TMR1, 4U);
    BSP_IntEn(BSP_INT_ID_TMR1);
    (void)OSTaskCreate(AppTaskDose, NULL, &s_dose_stk[255], 6U);
    (void)OSTaskCreate(AppTaskDisplay, NULL, &s_disp_stk[255], 12U);
    OSStart();
    return 0;
}
