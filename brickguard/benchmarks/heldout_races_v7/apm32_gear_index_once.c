/* Motorcycle dashboard on an APM32F103: the gear position sensor (three Hall switches on PB0..2)
 * interrupts on EINT1 at every change; the handler decodes the gear, or GEAR_NONE while the drum
 * is between two gears. main shows the road speed computed from the engine speed and the gear
 * ratio. */
#include "apm32f10x.h"

#define NGEARS 6U
#define GEAR_NONE 0xFFU

static volatile uint8_t s_gear = GEAR_NONE;
static volatile uint32_t s_engine_rpm;
static volatile uint32_t s_shifts;
static const uint16_t k_rpm_per_kmh[NGEARS] = { 140U, 95U, 72U, 59U, 51U, 45U };
static const uint8_t k_decode[8] = { GEAR_NONE, 0U, 1U, GEAR_NONE, 2U, 3U, 4U, 5U };

void EINT1_IRQHandler(void)
{
    uint32_t code;
    EINT_ClearIntFlag(EINT_LINE_1);
    code = (uint32_t)(GPIOB->IDATA & 0x7U);
    s_gear = k_decode[code];
    s_shifts++;
}

void TMR4_IRQHandler(void)
{
    TMR_ClearIntFlag(TMR4, TMR_INT_CC1);
    s_engine_rpm = 60000000U / ((uint32_t)TMR_ReadCaputer1(TMR4) + 1U);
}

int main(void)
{
    APM_BOARD_Init();
    NVIC_ConfigPriorityGroup(NVIC_PRIORITY_GROUP_4);
    NVIC_EnableIRQRequest(EINT1_IRQn, 3U, 0U);
    NVIC_EnableIRQRequest(TMR4_IRQn, 5U, 0U);

    for (;;) {
        uint32_t kmh = 0U;
        uint8_t gear = s_gear;
        if (gear != GEAR_NONE) {
            kmh = s_engine_rpm / k_rpm_per_kmh[gear];
        }
        printf("%3lu km/h gear %u shifts %lu\r\n", (unsigned long)kmh, (unsigned)gear + 1U,
               (unsigned long)s_shifts);
        Delay_ms(200U);
    }
}
