/* Bare CMSIS: the main loop posts requests for the TIMER0 handler as bits; the handler sends one
 * radio beacon per request and clears the request. The main loop sets a bit with an exclusive
 * load/store, but does not look at the STREX status. */
#include "cmsis_dev.h"

#define REQ_BEACON (1U << 0)
#define REQ_STATUS (1U << 1)

static volatile uint32_t g_requests;

void TIMER0_IRQHandler(void)
{
    static const uint8_t beacon[4] = {0xB0U, 0x0CU, 0x00U, 0x01U};
    static const uint8_t status[2] = {0x5AU, 0x00U};
    ACME_TIMER0->INTCLR = 1U;
    uint32_t req = g_requests;
    if ((req & REQ_BEACON) != 0U) {
        radio_send(beacon, sizeof(beacon));
    }
    if ((req & REQ_STATUS) != 0U) {
        radio_send(status, sizeof(status));
    }
    g_requests &= ~req;
}

static void request(uint32_t bits)
{
    uint32_t v = __LDREXW(&g_requests);
    (void)__STREXW(v | bits, &g_requests);
}

int main(void)
{
    uint32_t last_in = 0U;

    system_init();
    NVIC_EnableIRQ(TIMER0_IRQn);

    for (;;) {
        uint32_t in = ACME_GPIO0->IN;
        uint32_t pressed = in & ~last_in;
        last_in = in;
        if ((pressed & 0x1U) != 0U) {
            request(REQ_BEACON);
        }
        if ((pressed & 0x2U) != 0U) {
            request(REQ_STATUS);
        }
    }
}
