/* MSP432 driverlib: the ADC14 handler (level 1, 0x20) accumulates samples, the eUSCI_A0 UART
 * handler (level 3, 0x60) counts received bytes. Once per period the main loop takes both
 * tallies and resets them with BASEPRI raised to 0x40 (masks levels 2..7), keeping level 0 and
 * 1 responsive. */
#include "ti_mini.h"

static uint32_t g_adcSum;
static uint32_t g_adcN;
static uint32_t g_rxCount;

void ADC14_IRQHandler(void)
{
    uint64_t status = ADC14_getEnabledInterruptStatus();
    ADC14_clearInterruptFlag(status);
    g_adcSum += ADC14_getResult(ADC_MEM0);
    g_adcN++;
}

void EUSCIA0_IRQHandler(void)
{
    uint_fast8_t status = UART_getEnabledInterruptStatus(EUSCI_A0_BASE);
    UART_clearInterruptFlag(EUSCI_A0_BASE, status);
    (void)UART_receiveData(EUSCI_A0_BASE);
    g_rxCount++;
}

int main(void)
{
    board_setup();
    Interrupt_setPriority(INT_ADC14, 0x20);
    Interrupt_setPriority(INT_EUSCIA0, 0x60);
    Interrupt_enableInterrupt(INT_ADC14);
    Interrupt_enableInterrupt(INT_EUSCIA0);
    Interrupt_enableMaster();

    for (;;) {
        Interrupt_setPriorityMask(0x40);
        uint32_t sum = g_adcSum;
        uint32_t n = g_adcN;
        uint32_t rx = g_rxCount;
        g_adcSum = 0U;
        g_adcN = 0U;
        g_rxCount = 0U;
        Interrupt_setPriorityMask(0);
        if (n != 0U) {
            report_u32(sum / n);
        }
        report_u32(rx);
        (void)ADC14_toggleConversionTrigger();
    }
}
