/* Ultrasonic range finder on a TM4C123: main fires the trigger pin, the echo edges on PF4 are
 * time-stamped by the GPIO handler (rising, then falling edge); after the second edge the handler
 * masks its own interrupt in the NVIC and main, which sees g_edges == 2, computes the distance and
 * only then clears the record and unmasks the interrupt for the next ping. */
#include "tivaware.h"

static volatile uint32_t g_stamp[2];
static volatile uint32_t g_edges;
static volatile uint32_t g_spurious;

static void EchoIntHandler(void)
{
    uint32_t now = TimerValueGet(WTIMER0_BASE, TIMER_A);
    GPIOIntClear(GPIO_PORTF_BASE, GPIO_PIN_4);
    if (g_edges < 2U) {
        g_stamp[g_edges] = now;
        g_edges++;
        if (g_edges == 2U) {
            IntDisable(INT_GPIOF);
        }
    } else {
        g_spurious++;
    }
}

int main(void)
{
    SysCtlPeripheralEnable(SYSCTL_PERIPH_GPIOF);
    SysCtlPeripheralEnable(SYSCTL_PERIPH_TIMER0);
    TimerConfigure(WTIMER0_BASE, TIMER_CFG_PERIODIC);
    TimerLoadSet(WTIMER0_BASE, TIMER_A, 0xFFFFFFFFU);
    TimerEnable(WTIMER0_BASE, TIMER_A);
    GPIOIntTypeSet(GPIO_PORTF_BASE, GPIO_PIN_4, GPIO_BOTH_EDGES);
    GPIOIntRegister(GPIO_PORTF_BASE, EchoIntHandler);
    IntPrioritySet(INT_GPIOF, 0x20U);
    GPIOIntEnable(GPIO_PORTF_BASE, GPIO_PIN_4);
    IntMasterEnable();

    for (;;) {
        uint32_t ticks;
        GPIOPinWrite(GPIO_PORTA_BASE, GPIO_PIN_1, GPIO_PIN_1);
        SysCtlDelay(SysCtlClockGet() / 300000U);
        GPIOPinWrite(GPIO_PORTA_BASE, GPIO_PIN_1, 0U);
        SysCtlDelay(SysCtlClockGet() / 60U);
        if (g_edges == 2U) {
            ticks = g_stamp[0] - g_stamp[1];
            UARTprintf("range %u mm (spurious %u)\n",
                       (ticks / (SysCtlClockGet() / 1000000U)) * 343U / 2000U, g_spurious);
        } else {
            UARTprintf("no echo\n");
        }
        IntDisable(INT_GPIOF);
        g_edges = 0U;
        GPIOIntClear(GPIO_PORTF_BASE, GPIO_PIN_4);
        IntEnable(INT_GPIOF);
    }
}
