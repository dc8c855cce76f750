/* SAM E54 frequency counter: the EIC line 3 handler counts input edges, the TC4 handler marks
 * each 100 ms gate. At each gate the main loop takes the edge count and restarts it, with the
 * EIC line 3 interrupt disabled in the NVIC around the take. */
#include "sam_mini.h"

static volatile uint32_t g_edges;
static volatile uint32_t g_gates; /* TC4 only writes; main reads */

void EIC_EXTINT_3_Handler(void)
{
    EIC->INTFLAG = EIC_INTFLAG_EXTINT3;
    g_edges++;
}

void TC4_Handler(void)
{
    TC4->COUNT16.INTFLAG = TC_INTFLAG_OVF;
    g_gates++;
}

int main(void)
{
    uint32_t seen = 0U;

    SYS_Initialize(NULL);
    NVIC_SetPriority(EIC_EXTINT_3_IRQn, 1U);
    NVIC_SetPriority(TC4_IRQn, 2U);
    NVIC_EnableIRQ(EIC_EXTINT_3_IRQn);
    NVIC_EnableIRQ(TC4_IRQn);

    for (;;) {
        uint32_t gates = g_gates;
        if (gates != seen) {
            seen = gates;
            NVIC_DisableIRQ(EIC_EXTINT_3_IRQn);
            uint32_t edges = g_edges;
            g_edges = 0U;
            NVIC_EnableIRQ(EIC_EXTINT_3_IRQn);
            log_event(edges * 10U); /* Hz */
        }
    }
}
