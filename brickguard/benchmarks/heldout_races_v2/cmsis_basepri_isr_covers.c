/* Bare CMSIS (__NVIC_PRIO_BITS = 3): a trace ring written by two handlers. TIMER0 runs at level
 * 1 and can preempt UART0 at level 3, so UART0 writes its entry with BASEPRI raised to level 1
 * (register value 1 << (8 - 3) = 0x20, masking levels 1..7, TIMER0 included). TIMER0 itself
 * cannot be preempted by UART0 and writes without masking. */
#include "cmsis_dev.h"

#define TRACE_LEN 32U

static volatile uint32_t g_trace[TRACE_LEN];
static volatile uint32_t g_traceIdx;

static void trace_put(uint32_t word)
{
    uint32_t i = g_traceIdx;
    g_trace[i] = word;
    g_traceIdx = (i + 1U) % TRACE_LEN;
}

void UART0_IRQHandler(void)
{
    uint32_t byte = ACME_UART0->DATA;
    uint32_t old = __get_BASEPRI();
    __set_BASEPRI(1U << (8U - __NVIC_PRIO_BITS));
    trace_put(0x10000U | byte);
    __set_BASEPRI(old);
}

void TIMER0_IRQHandler(void)
{
    ACME_TIMER0->INTCLR = 1U;
    trace_put(0x20000U | ACME_TIMER0->COUNT);
}

int main(void)
{
    system_init();
    NVIC_SetPriority(TIMER0_IRQn, 1U);
    NVIC_SetPriority(UART0_IRQn, 3U);
    NVIC_EnableIRQ(TIMER0_IRQn);
    NVIC_EnableIRQ(UART0_IRQn);

    for (;;) {
        __WFI();
        if (g_traceIdx == 0U) {
            uart_send_byte('w'); /* the ring has wrapped */
        }
    }
}
