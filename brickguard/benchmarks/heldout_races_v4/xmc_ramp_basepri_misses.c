/* Heater ramp: main raises the set-point one step every millisecond; the VADC result handler
 * clamps the set-point down when the measured temperature passes the limit. Main masks the
 * interrupts below priority 32 while it updates the set-point. */
#include "xmc4500.h"

#define TEMP_LIMIT 3100U
#define BASEPRI_LEVEL 32U

static volatile uint32_t g_setpoint;
static volatile uint32_t g_last_temp;

void VADC0_G0_0_IRQHandler(void)
{
    uint32_t t = XMC_VADC_GROUP_GetResult(VADC_G0, 0U);
    g_last_temp = t;
    if (t > TEMP_LIMIT) {
        g_setpoint = g_setpoint / 2U;
    }
}

static void ramp_step(uint32_t step, uint32_t target)
{
    uint32_t old = __get_BASEPRI();
    __set_BASEPRI(BASEPRI_LEVEL << (8U - __NVIC_PRIO_BITS));
    if (g_setpoint + step <= target) {
        g_setpoint += step;
    }
    __set_BASEPRI(old);
}

int main(void)
{
    SystemCoreClockUpdate();
    NVIC_SetPriorityGrouping(0U);
    NVIC_SetPriority(VADC0_G0_0_IRQn, 20U);
    NVIC_EnableIRQ(VADC0_G0_0_IRQn);
    for (;;) {
        ramp_step(5U, 900U);
        heater_set(g_setpoint);
        for (volatile uint32_t i = 0U; i < 12000U; i++) {
        }
    }
}
