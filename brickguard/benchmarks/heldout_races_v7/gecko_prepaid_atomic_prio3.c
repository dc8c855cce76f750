/* Prepaid water tap on an EFM32GG11 (Gecko SDK): the flow sensor on PC3 (GPIO interrupt 3, so the
 * odd GPIO IRQ) runs flow_cb, which debits each 10 ml pulse from the prepaid volume and closes the
 * valve when it runs out; it is given priority 3, the ATOMIC level, so that the application's
 * ATOMIC sections hold it off. main credits top-ups read from the card reader. */
#include "em_gecko.h"

#define ML_PER_PULSE 10U
#define FLOW_PIN 3U

static volatile uint32_t s_remaining_ml;
static volatile uint32_t s_dispensed_ml;
static volatile bool s_valve_open;

static void flow_cb(uint8_t intNo)
{
    (void)intNo;
    s_dispensed_ml += ML_PER_PULSE;
    if (s_remaining_ml > ML_PER_PULSE) {
        s_remaining_ml -= ML_PER_PULSE;
    } else {
        s_remaining_ml = 0U;
        GPIO_PinOutClear(gpioPortD, 6U);
        s_valve_open = false;
    }
}

static uint32_t card_reader_poll(void)
{
    if ((USART_IntGet(USART0) & USART_IF_RXDATAV) == 0U) {
        return 0U;
    }
    return (uint32_t)USART_Rx(USART0) * 100U;     /* top-up in litres/10 */
}

static void credit(uint32_t ml)
{
    CORE_DECLARE_IRQ_STATE;
    CORE_ENTER_ATOMIC();
    s_remaining_ml += ml;
    CORE_EXIT_ATOMIC();
}

int main(void)
{
    CHIP_Init();
    GPIO_PinModeSet(gpioPortC, FLOW_PIN, gpioModeInputPull, 1U);
    GPIO_PinModeSet(gpioPortD, 6U, gpioModePushPull, 0U);
    GPIOINT_Init();
    NVIC_SetPriority(GPIO_ODD_IRQn, 3U);
    GPIOINT_CallbackRegister(FLOW_PIN, flow_cb);
    GPIO_ExtIntConfig(gpioPortC, FLOW_PIN, FLOW_PIN, false, true, true);

    for (;;) {
        uint32_t top_up = card_reader_poll();
        if (top_up != 0U) {
            credit(top_up);
            GPIO_PinOutSet(gpioPortD, 6U);
            s_valve_open = true;
        }
        app_log("left %lu ml, out %lu ml, valve %d\n", (unsigned long)s_remaining_ml,
                (unsigned long)s_dispensed_ml, (int)s_valve_open);
        sl_sleeptimer_delay_millisecond(200U);
    }
}
