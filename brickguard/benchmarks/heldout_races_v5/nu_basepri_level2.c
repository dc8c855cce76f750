/* Spindle speed loop on a Nuvoton M487 (NuMicro BSP): TMR0 counts encoder revolutions at level 2;
 * the control loop in main subtracts the revolutions it has consumed, masking interrupts of level
 * 2 and less urgent with BASEPRI so that the UART console (level 5) cannot delay it. */
#include "NuMicro.h"

static volatile uint32_t g_revs;
static volatile uint32_t g_uart_chars;

void TMR0_IRQHandler(void)
{
    TIMER_ClearIntFlag(TIMER0);
    g_revs++;
}

void UART0_IRQHandler(void)
{
    while (!UART_GET_RX_EMPTY(UART0)) {
        (void)UART_READ(UART0);
        g_uart_chars++;
    }
}

int main(void)
{
    uint32_t rpm_acc = 0U;
    SYS_Init();
    UART_Open(UART0, 115200U);
    (void)TIMER_Open(TIMER0, TIMER_PERIODIC_MODE, 1000U);
    TIMER_EnableInt(TIMER0);
    NVIC_SetPriority(TMR0_IRQn, 2U);
    NVIC_SetPriority(UART0_IRQn, 5U);
    NVIC_EnableIRQ(TMR0_IRQn);
    NVIC_EnableIRQ(UART0_IRQn);
    UART_ENABLE_INT(UART0, UART_INTEN_RDAIEN_Msk);
    TIMER_Start(TIMER0);
    for (;;) {
        __set_BASEPRI(2U << (8U - __NVIC_PRIO_BITS));
        uint32_t revs = g_revs;
        g_revs -= revs;
        __set_BASEPRI(0U);
        rpm_acc = rpm_acc - rpm_acc / 8U + revs * 60U;
        printf("rpm %lu chars %lu\n", (unsigned long)(rpm_acc / 8U), (unsigned long)g_uart_chars);
    }
}
