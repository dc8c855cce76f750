/* Linear axis on a TM4C129 with TI-RTOS: the encoder's index/step input interrupts through a Hwi
 * that counts steps; the control task applies the homing offset to the position and drives the
 * motor from it. The step Hwi was given priority 0 for the shortest latency. */
#include "ti_sysbios.h"

static volatile int32_t g_position;
static volatile int32_t g_direction = 1;
static int32_t s_target = 12000;

static void step_hwi(UArg arg)
{
    (void)arg;
    GPIOIntClear(GPIO_PORTA_BASE, 0x01U);
    g_position += g_direction;
}

static void control_task(UArg a0, UArg a1)
{
    (void)a0;
    (void)a1;
    for (;;) {
        Task_sleep(1);
        if (GPIOPinRead(GPIO_PORTA_BASE, 0x02U) != 0) {
            UInt key = Hwi_disable();
            g_position -= 40; /* the home switch trips 40 steps before true zero */
            Hwi_restore(key);
        }
        int32_t error = s_target - g_position;
        g_direction = (error >= 0) ? 1 : -1;
        motor_set_duty(error / 8);
    }
}

int main(void)
{
    Hwi_Params hp;
    Task_Params tp;
    Hwi_Params_init(&hp);
    hp.priority = 0x00;
    (void)Hwi_create(INT_GPIOA, step_hwi, &hp, NULL);
    Task_Params_init(&tp);
    tp.priority = 3;
    (void)Task_create(control_task, &tp, NULL);
    BIOS_start();
    return 0;
}
