/* Stepper driver: TIM5 fires every step and moves the position by one in the current direction;
 * the control thread applies encoder corrections to the same position under the kernel lock. */
#include "chibios.h"

static volatile int32_t g_position;
static volatile int32_t g_direction = 1;

OSAL_IRQ_HANDLER(STM32_TIM5_HANDLER)
{
    OSAL_IRQ_PROLOGUE();
    TIM5->SR = ~STM32_TIM_SR_UIF;
    g_position += g_direction;
    OSAL_IRQ_EPILOGUE();
}

static THD_WORKING_AREA(waCtl, 512);
static THD_FUNCTION(control_thread, arg)
{
    (void)arg;
    for (;;) {
        int32_t correction = encoder_error_steps();
        if (correction != 0) {
            chSysLock();
            g_position += correction;
            chSysUnlock();
        }
        motor_apply(g_position);
        chThdSleepMilliseconds(5U);
    }
}

int main(void)
{
    halInit();
    chSysInit();
    TIM5->ARR = 999U;
    TIM5->DIER = STM32_TIM_SR_UIF;
    nvicEnableVector(STM32_TIM5_NUMBER, 6U);
    TIM5->CR1 = 1U;
    chThdCreateStatic(waCtl, sizeof(waCtl), NORMALPRIO + 2U, control_thread, NULL);
    for (;;) {
        chThdSleepMilliseconds(1000U);
    }
}
