/* Pump drive on an S32K144: the FTM0 overflow handler (20 kHz PWM period) checks the shunt
 * current and sets FAULT_OVERCURRENT; the PORTC handler (the operator's reset button) clears the
 * latched FAULT_ESTOP after the e-stop is released. main stops the pump while any fault is set. */
#include "s32k_sdk.h"

#define FAULT_OVERCURRENT 0x01U
#define FAULT_ESTOP 0x02U
#define FAULT_OVERTEMP 0x04U
#define ESTOP_PIN 12U
#define RESET_PIN 13U

static volatile uint32_t s_faults;
static volatile uint32_t s_current_raw;
static volatile uint32_t s_resets;

void FTM0_Ovf_Reload_IRQHandler(void)
{
    FTM_DRV_ClearStatusFlags(0U, FTM_TIME_OVER_FLOW_FLAG);
    s_current_raw = FTM0->CV[2];
    if (s_current_raw > 3000U) {
        s_faults |= FAULT_OVERCURRENT;
        FTM0->CV[0] = 0U;
    }
}

void PORTC_IRQHandler(void)
{
    uint32_t flags = PINS_DRV_GetPortIntFlag(PORTC);
    PINS_DRV_ClearPinIntFlagCmd(PORTC, RESET_PIN);
    if ((flags & (1UL << RESET_PIN)) != 0U) {
        if ((PTC->PDIR & (1UL << ESTOP_PIN)) != 0U) {
            s_faults &= ~FAULT_ESTOP;
            s_resets++;
        }
    }
}

int main(void)
{
    CLOCK_SYS_Init_Default();
    (void)FTM_DRV_Init(0U, NULL, NULL);
    INT_SYS_SetPriority(FTM0_Ovf_Reload_IRQn, 1U);
    INT_SYS_SetPriority(PORTC_IRQn, 6U);
    INT_SYS_EnableIRQ(FTM0_Ovf_Reload_IRQn);
    INT_SYS_EnableIRQ(PORTC_IRQn);
    s_faults = FAULT_ESTOP;

    for (;;) {
        if ((PTC->PDIR & (1UL << ESTOP_PIN)) == 0U) {
            INT_SYS_DisableIRQGlobal();
            s_faults |= FAULT_ESTOP;
            INT_SYS_EnableIRQGlobal();
        }
        if (s_faults != 0U) {
            FTM0->CV[0] = 0U;
        } else {
            FTM0->CV[0] = 1200U;
        }
        OSIF_TimeDelay(1U);
    }
}
