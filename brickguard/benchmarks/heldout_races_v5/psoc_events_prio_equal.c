/* Event logger on a PSoC 4200 (PSoC Creator): the receive interrupt of the SCB UART and the ADC's
 * end-of-conversion interrupt both raise bits in one pending-event word; main handles and clears
 * them with interrupts masked. Both interrupts share priority 1. */
#include "psoc4.h"

#define EV_RX (1U << 0)
#define EV_ADC (1U << 1)
#define EV_ADC_HIGH (1U << 2)

static volatile uint32 g_events;
static volatile int16 g_adc_mv;
static volatile uint8 g_rx_char;

CY_ISR(RxIsr)
{
    g_rx_char = (uint8)UART_UartGetChar();
    UART_ClearRxInterruptSource(UART_INTR_RX_NOT_EMPTY);
    g_events |= EV_RX;
}

CY_ISR(AdcIsr)
{
    ADC_ClearEoc();
    int16 mv = ADC_GetResult16(0U);
    g_adc_mv = mv;
    g_events |= (mv > 3000) ? (EV_ADC | EV_ADC_HIGH) : EV_ADC;
}

int main(void)
{
    UART_Start();
    ADC_Start();
    isr_Rx_StartEx(RxIsr);
    isr_Adc_StartEx(AdcIsr);
    isr_Rx_SetPriority(1U);
    isr_Adc_SetPriority(1U);
    CyGlobalIntEnable;
    ADC_StartConvert();
    for (;;) {
        uint8 state = CyEnterCriticalSection();
        uint32 ev = g_events;
        g_events = 0U;
        CyExitCriticalSection(state);
        if ((ev & EV_RX) != 0U && g_rx_char == '?') {
            UART_UartPutString(((ev & EV_ADC_HIGH) != 0U) ? "HIGH\r\n" : "ok\r\n");
        }
        if ((ev & EV_ADC_HIGH) != 0U) {
            Pin_Led_Write(1U);
        }
    }
}
