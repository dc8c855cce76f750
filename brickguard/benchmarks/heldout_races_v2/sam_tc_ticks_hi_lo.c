/* SAM E54: a 64-bit tick count kept as two 32-bit words by the TC3 overflow handler; the main
 * loop builds the 64-bit value from the two words to timestamp its log records. */
#include "sam_mini.h"

static volatile uint32_t g_ticksLo;
static volatile uint32_t g_ticksHi;

void TC3_Handler(void)
{
    TC3->COUNT16.INTFLAG = TC_INTFLAG_OVF;
    g_ticksLo++;
    if (g_ticksLo == 0U) {
        g_ticksHi++;
    }
}

static uint64_t ticks_now(void)
{
    uint32_t hi = g_ticksHi;
    uint32_t lo = g_ticksLo;
    return ((uint64_t)hi << 32) | lo;
}

int main(void)
{
    uint64_t last = 0U;

    SYS_Initialize(NULL);
    NVIC_SetPriority(TC3_IRQn, 4U);
    NVIC_EnableIRQ(TC3_IRQn);

    for (;;) {
        uint64_t now = ticks_now();
        if (now < last) {
            log_event(0xBAD0U); /* time went backwards */
        }
        last = now;
    }
}
