/* Energy meter: TIM2 interrupts every millisecond and adds the instantaneous power (mW) to a
 * 64-bit energy total in microjoules; the report thread logs the energy used per minute. */
#include "chibios.h"

static volatile uint64_t g_energy_uj;
static volatile uint32_t g_power_mw;

OSAL_IRQ_HANDLER(STM32_TIM2_HANDLER)
{
    OSAL_IRQ_PROLOGUE();
    TIM2->SR = ~STM32_TIM_SR_UIF;
    g_energy_uj += g_power_mw;
    OSAL_IRQ_EPILOGUE();
}

static uint64_t energy_now(void)
{
    syssts_t sts = chSysGetStatusAndLockX();
    uint64_t e = g_energy_uj;
    chSysRestoreStatusX(sts);
    return e;
}

static THD_WORKING_AREA(waReport, 512);
static THD_FUNCTION(report_thread, arg)
{
    (void)arg;
    uint64_t last = energy_now();
    for (;;) {
        chThdSleepMilliseconds(60000U);
        uint64_t now = energy_now();
        log_value((uint32_t)((now - last) / 1000U));
        last = now;
    }
}

int main(void)
{
    halInit();
    chSysInit();
    g_power_mw = 0U;
    TIM2->PSC = 83U;
    TIM2->ARR = 999U;
    TIM2->DIER = STM32_TIM_SR_UIF;
    nvicEnableVector(STM32_TIM2_NUMBER, 7U);
    TIM2->CR1 = 1U;
    chThdCreateStatic(waReport, sizeof(waReport), NORMALPRIO, report_thread, NULL);
    for (;;) {
        g_power_mw = power_sensor_mw();
        chThdSleepMilliseconds(100U);
    }
}
