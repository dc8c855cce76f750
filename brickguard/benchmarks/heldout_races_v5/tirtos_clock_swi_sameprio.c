/* Dosing pump on a TM4C129 with TI-RTOS. A 10 ms Clock function adds the pump's commanded dose to
 * a debt; a Swi posted by the flow sensor's Hwi pays the debt off per measured pulse. Both
 * read-modify-write the debt without a gate: the Swi is created at priority 15, the priority of
 * the Clock module's Swi (Clock.swiPriority, the default, the highest Swi level), and Swis of one
 * priority run to completion one after the other. The Hwi only posts the Swi. */
#include "ti_sysbios.h"

#define DOSE_PER_TICK 3
#define CLOCK_SWI_PRIORITY 15U

static volatile int32_t g_debt;
static volatile uint32_t g_pulse_total;
static Swi_Handle s_pulse_swi;

static void dose_clock(UArg arg)
{
    (void)arg;
    g_debt += DOSE_PER_TICK;
    motor_set_duty(g_debt > 0 ? 800 : 0);
}

static void pulse_swi(UArg a0, UArg a1)
{
    (void)a0;
    (void)a1;
    g_debt -= 1;
    g_pulse_total++;
    if (g_debt <= 0) {
        motor_set_duty(0);
    }
}

static void flow_hwi(UArg arg)
{
    (void)arg;
    GPIOIntClear(GPIO_PORTA_BASE, 0x04U);
    Swi_post(s_pulse_swi);
}

static void report_task(UArg a0, UArg a1)
{
    (void)a0;
    (void)a1;
    for (;;) {
        Task_sleep(5000);
        System_printf("pulses %lu debt %ld\n", (unsigned long)g_pulse_total, (long)g_debt);
    }
}

int main(void)
{
    Swi_Params sp;
    Clock_Params cp;
    Hwi_Params hp;
    Task_Params tp;
    Swi_Params_init(&sp);
    sp.priority = CLOCK_SWI_PRIORITY;
    s_pulse_swi = Swi_create(pulse_swi, &sp, NULL);
    Clock_Params_init(&cp);
    cp.period = 10;
    cp.startFlag = TRUE;
    (void)Clock_create(dose_clock, 10, &cp, NULL);
    Hwi_Params_init(&hp);
    hp.priority = 0x60;
    (void)Hwi_create(INT_GPIOA, flow_hwi, &hp, NULL);
    Task_Params_init(&tp);
    tp.priority = 1;
    (void)Task_create(report_task, &tp, NULL);
    BIOS_start();
    return 0;
}
