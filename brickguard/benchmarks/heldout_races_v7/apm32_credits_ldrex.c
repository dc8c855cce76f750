/* Rate limiter of an APM32F103 telemetry radio: the TMR4 update interrupt (every 10 ms) adds one
 * transmit credit, up to 20; main spends a credit per packet. main's decrement is an LDREX/STREX
 * loop: any interrupt between the two clears the exclusive monitor, the STREX fails and main
 * retries with the new value, so no refill is lost and no lock is needed. */
#include "apm32f10x.h"

#define CREDIT_MAX 20U

static volatile uint32_t s_credits;
static volatile uint32_t s_refills;
static uint32_t s_sent;

void TMR4_IRQHandler(void)
{
    TMR_ClearIntFlag(TMR4, TMR_INT_UPDATE);
    if (s_credits < CREDIT_MAX) {
        s_credits++;
        s_refills++;
    }
}

static bool take_credit(void)
{
    uint32_t c;
    do {
        c = __LDREXW(&s_credits);
        if (c == 0U) {
            __CLREX();
            return false;
        }
    } while (__STREXW(c - 1U, &s_credits) != 0U);
    return true;
}

static void radio_send(uint32_t seq)
{
    USART_TxData(USART2, (uint16_t)(seq & 0xFFU));
    while (USART_ReadIntFlag(USART2, USART_INT_TXBE) == 0U) {
    }
}

int main(void)
{
    APM_BOARD_Init();
    NVIC_ConfigPriorityGroup(NVIC_PRIORITY_GROUP_2);
    NVIC_EnableIRQRequest(TMR4_IRQn, 1U, 0U);
    TMR_EnableInterrupt(TMR4, TMR_INT_UPDATE);
    TMR_Enable(TMR4);

    for (;;) {
        if (take_credit()) {
            radio_send(s_sent);
            s_sent++;
        }
        if ((s_sent % 1000U) == 0U) {
            printf("sent %lu refills %lu\r\n", (unsigned long)s_sent, (unsigned long)s_refills);
        }
    }
}
