/* Flow meter: the PORTC interrupt counts the pulses of a turbine; once a second the display task
 * takes the pulses counted so far and shows the flow in rpm. */
#include "RTOS.h"

static OS_TASK s_tcb_display;
static OS_U32 s_stack_display[128];
static volatile OS_U32 g_pulses;
static OS_U32 s_last_rpm;

void PORTC_IRQHandler(void)
{
    OS_INT_Enter();
    PORTC->ISFR = 1UL << 6;
    g_pulses++;
    OS_INT_Leave();
}

static void display_task(void)
{
    for (;;) {
        OS_TASK_Delay(1000U);
        OS_INT_IncDI();
        OS_U32 n = g_pulses;
        g_pulses = 0U;
        OS_INT_DecRI();
        s_last_rpm = n * 60U / 4U;
        display_rpm(s_last_rpm);
    }
}

int main(void)
{
    OS_Init();
    OS_InitHW();
    PORTC->PCR[6] = (0x9UL << 16) | (1UL << 8);
    NVIC_SetPriority(PORTC_IRQn, 12U);
    NVIC_EnableIRQ(PORTC_IRQn);
    OS_TASK_CREATE(&s_tcb_display, "Display", 100U, display_task, s_stack_display);
    OS_Start();
    return 0;
}
