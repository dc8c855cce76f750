/* Flow meter: pulses on a GPIO (odd pin) counted by its handler; main converts them to litres once
 * a second. emlib atomic sections use BASEPRI here (emlib_config.h). EFM32PG12. */
#define CORE_ATOMIC_METHOD CORE_ATOMIC_METHOD_BASEPRI
#include "efm32pg12_emlib.h"

#define PULSES_PER_LITRE 450U

static volatile uint32_t g_pulses;
static uint32_t s_total_pulses;

void GPIO_ODD_IRQHandler(void)
{
    uint32_t flags = GPIO_IntGetEnabled() & 0xAAAAU;
    GPIO_IntClear(flags);
    if ((flags & (1U << 5)) != 0U) {
        g_pulses++;
    }
}

extern void display_litres(uint32_t litres);
extern void delay_ms(uint32_t ms);

int main(void)
{
    CHIP_Init();
    GPIO_PinModeSet(gpioPortF, 5U, gpioModeInputPull, 1U);
    GPIO_ExtIntConfig(gpioPortF, 5U, 5U, false, true, true);
    NVIC_SetPriority(GPIO_ODD_IRQn, 1U);
    NVIC_EnableIRQ(GPIO_ODD_IRQn);
    for (;;) {
        uint32_t taken;
        CORE_DECLARE_IRQ_STATE;
        CORE_ENTER_ATOMIC();
        taken = g_pulses;
        g_pulses = 0U;
        CORE_EXIT_ATOMIC();
        s_total_pulses += taken;
        display_litres(s_total_pulses / PULSES_PER_LITRE);
        delay_ms(1000U);
    }
}
