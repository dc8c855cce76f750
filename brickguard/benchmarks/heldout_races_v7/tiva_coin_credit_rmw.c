/* Vending controller on a TM4C123 LaunchPad: the coin validator pulses PF4 once per 5 cents; the
 * pulse handler is put in the RAM vector table by GPIOIntRegister. main takes the price of a
 * product off the credit when a selection button (PA0/PA1) is pressed and the credit covers it. */
#include "tivaware.h"

#define CENTS_PER_PULSE 5U
#define PRICE_A 125U
#define PRICE_B 90U

static volatile uint32_t g_credit_cents;   /* credit inserted, not yet spent */
static volatile uint32_t g_pulses_total;   /* audit counter, never reset */
static volatile uint32_t g_last_pulse_tick;

static void CoinPulseIntHandler(void)
{
    uint32_t status = GPIOIntStatus(GPIO_PORTF_BASE, true);
    GPIOIntClear(GPIO_PORTF_BASE, status);
    if ((status & GPIO_PIN_4) != 0U) {
        g_credit_cents += CENTS_PER_PULSE;
        g_pulses_total++;
        g_last_pulse_tick = TimerValueGet(TIMER0_BASE, TIMER_A);
    }
}

static void vend(uint32_t slot)
{
    GPIOPinWrite(GPIO_PORTA_BASE, (uint8_t)(GPIO_PIN_4 << slot), (uint8_t)(GPIO_PIN_4 << slot));
    SysCtlDelay(SysCtlClockGet() / 6U);
    GPIOPinWrite(GPIO_PORTA_BASE, (uint8_t)(GPIO_PIN_4 << slot), 0U);
}

static bool try_buy(uint32_t price)
{
    bool ok = false;
    if (g_credit_cents >= price) {
        g_credit_cents -= price;
        ok = true;
    }
    return ok;
}

int main(void)
{
    SysCtlPeripheralEnable(SYSCTL_PERIPH_GPIOF);
    SysCtlPeripheralEnable(SYSCTL_PERIPH_TIMER0);
    TimerConfigure(TIMER0_BASE, TIMER_CFG_PERIODIC);
    TimerLoadSet(TIMER0_BASE, TIMER_A, 0xFFFFFFFFU);
    TimerEnable(TIMER0_BASE, TIMER_A);
    GPIOIntTypeSet(GPIO_PORTF_BASE, GPIO_PIN_4, GPIO_FALLING_EDGE);
    GPIOIntRegister(GPIO_PORTF_BASE, CoinPulseIntHandler);
    IntPrioritySet(INT_GPIOF, 0x20U);
    GPIOIntEnable(GPIO_PORTF_BASE, GPIO_PIN_4);
    IntMasterEnable();

    for (;;) {
        if (GPIOPinRead(GPIO_PORTA_BASE, GPIO_PIN_0) == 0) {
            if (try_buy(PRICE_A)) {
                vend(0U);
            }
        } else if (GPIOPinRead(GPIO_PORTA_BASE, GPIO_PIN_1) == 0) {
            if (try_buy(PRICE_B)) {
                vend(1U);
            }
        }
        UARTprintf("credit %u c, %u pulses\r", g_credit_cents, g_pulses_total);
        SysCtlDelay(SysCtlClockGet() / 30U);
    }
}
