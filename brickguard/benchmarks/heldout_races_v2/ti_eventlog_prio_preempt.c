/* MSP432 driverlib: a timestamped event log written by two handlers. The Timer32 handler logs
 * a heartbeat and runs at level 1 (0x20), the PORT1 button handler logs presses at level 2
 * (0x40); the Timer32 handler therefore preempts the PORT1 handler. */
#include "ti_mini.h"

#define LOG_LEN 16U

static volatile uint32_t g_logCount;
static volatile uint32_t g_logCode[LOG_LEN];

void T32_INT1_IRQHandler(void)
{
    Timer32_clearInterruptFlag(TIMER32_0_BASE);
    uint32_t slot = g_logCount % LOG_LEN;
    g_logCode[slot] = 0x1000U | slot;
    g_logCount = g_logCount + 1U;
}

void PORT1_IRQHandler(void)
{
    uint16_t pins = GPIO_getEnabledInterruptStatus(GPIO_PORT_P1);
    GPIO_clearInterruptFlag(GPIO_PORT_P1, pins);
    uint32_t slot = g_logCount % LOG_LEN;
    g_logCode[slot] = 0x2000U | pins;
    g_logCount = g_logCount + 1U;
}

int main(void)
{
    board_setup();
    Interrupt_setPriority(INT_T32_INT1, 0x20);
    Interrupt_setPriority(INT_PORT1, 0x40);
    Interrupt_enableInterrupt(INT_T32_INT1);
    Interrupt_enableInterrupt(INT_PORT1);
    Timer32_startTimer(TIMER32_0_BASE, false);
    Interrupt_enableMaster();

    for (;;) {
        report_u32(g_logCount);
        __WFI();
    }
}
