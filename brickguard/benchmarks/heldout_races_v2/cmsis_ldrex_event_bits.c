/* Bare CMSIS: event bits posted by two handlers of different priority and taken by the main
 * loop. TIMER1 (priority 1) can preempt UART0 (priority 3), so UART0 and main set and take the
 * bits with exclusive load/store loops; TIMER1 cannot be preempted by either and sets its bit
 * with a plain read-modify-write. An exception entry or return clears the local exclusive
 * monitor, so any handler run between an LDREX and its STREX makes the STREX fail and retry. */
#include "cmsis_dev.h"

#define EV_RX (1U << 0)
#define EV_TICK (1U << 1)

static volatile uint32_t g_pending;

static void post_exclusive(uint32_t bits)
{
    uint32_t v;
    do {
        v = __LDREXW(&g_pending);
    } while (__STREXW(v | bits, &g_pending) != 0U);
}

void UART0_IRQHandler(void)
{
    (void)ACME_UART0->DATA;
    post_exclusive(EV_RX);
}

void TIMER1_IRQHandler(void)
{
    ACME_TIMER1->INTCLR = 1U;
    g_pending |= EV_TICK;
}

static uint32_t take_all(void)
{
    uint32_t v;
    do {
        v = __LDREXW(&g_pending);
    } while (__STREXW(0U, &g_pending) != 0U);
    __DMB();
    return v;
}

int main(void)
{
    system_init();
    NVIC_SetPriority(UART0_IRQn, 3U);
    NVIC_SetPriority(TIMER1_IRQn, 1U);
    NVIC_EnableIRQ(UART0_IRQn);
    NVIC_EnableIRQ(TIMER1_IRQn);

    for (;;) {
        uint32_t ev = take_all();
        if ((ev & EV_RX) != 0U) {
            uart_send_byte('r');
        }
        if ((ev & EV_TICK) != 0U) {
            blink();
        }
    }
}
