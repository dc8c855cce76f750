/* Bicycle computer on a TM4C123: the wheel reed switch on PF0 interrupts at priority 0x20 (it
 * must not be held off by the display refresh), the 10 Hz timer at 0x60. Every second main takes
 * the pulses counted so far to update the trip distance, under a BASEPRI mask. */
#include "tivaware.h"

#define WHEEL_MM 2105U

static volatile uint32_t g_wheel_pulses;   /* since the last read-out */
static volatile uint32_t g_ticks_100ms;
static volatile uint8_t g_reed_level;
static uint32_t g_trip_mm;

static void WheelIntHandler(void)
{
    GPIOIntClear(GPIO_PORTF_BASE, GPIO_PIN_0);
    g_wheel_pulses++;
    g_reed_level = (uint8_t)GPIOPinRead(GPIO_PORTF_BASE, GPIO_PIN_0);
}

static void TickIntHandler(void)
{
    TimerIntClear(TIMER1_BASE, TIMER_TIMA_TIMEOUT);
    g_ticks_100ms++;
}

static uint32_t take_pulses(void)
{
    uint32_t n;
    uint32_t old = IntPriorityMaskGet();
    IntPriorityMaskSet(0x20U);
    n = g_wheel_pulses;
    g_wheel_pulses = 0U;
    IntPriorityMaskSet(old);
    return n;
}

int main(void)
{
    uint32_t next = 10U;
    SysCtlPeripheralEnable(SYSCTL_PERIPH_GPIOF);
    SysCtlPeripheralEnable(SYSCTL_PERIPH_TIMER1);
    GPIOIntTypeSet(GPIO_PORTF_BASE, GPIO_PIN_0, GPIO_FALLING_EDGE);
    GPIOIntRegister(GPIO_PORTF_BASE, WheelIntHandler);
    IntPrioritySet(INT_GPIOF, 0x20U);
    GPIOIntEnable(GPIO_PORTF_BASE, GPIO_PIN_0);
    TimerConfigure(TIMER1_BASE, TIMER_CFG_PERIODIC);
    TimerLoadSet(TIMER1_BASE, TIMER_A, SysCtlClockGet() / 10U);
    TimerIntRegister(TIMER1_BASE, TIMER_A, TickIntHandler);
    IntPrioritySet(INT_TIMER1A, 0x60U);
    TimerIntEnable(TIMER1_BASE, TIMER_TIMA_TIMEOUT);
    TimerEnable(TIMER1_BASE, TIMER_A);
    IntMasterEnable();

    for (;;) {
        while ((int32_t)(g_ticks_100ms - next) < 0) {
        }
        next += 10U;
        g_trip_mm += take_pulses() * WHEEL_MM;
        UARTprintf("trip %u m reed %u\n", g_trip_mm / 1000U, g_reed_level);
    }
}
