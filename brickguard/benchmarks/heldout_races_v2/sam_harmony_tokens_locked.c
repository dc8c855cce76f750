/* SAM E54 with Harmony 3: a token bucket rate-limits the log. The TC3 PLIB calls tick_cb from
 * TC3_Handler every millisecond to add a token; the main loop spends one token per record, testing and
 * taking it with interrupts disabled. */
#include "sam_mini.h"

#define MAX_TOKENS 50U

static volatile uint32_t g_tokens;
static volatile uint32_t g_records; /* main only */

static void tick_cb(uint32_t status, uintptr_t context)
{
    (void)status;
    (void)context;
    if (g_tokens < MAX_TOKENS) {
        g_tokens++;
    }
}

int main(void)
{
    SYS_Initialize(NULL);
    TC3_TimerCallbackRegister(tick_cb, (uintptr_t)0);
    NVIC_EnableIRQ(TC3_IRQn);
    TC3_TimerStart();

    for (;;) {
        bool take = false;
        __disable_irq();
        if (g_tokens > 0U) {
            g_tokens--;
            take = true;
        }
        __enable_irq();
        if (take) {
            g_records++;
            log_event(g_records);
        }
    }
}
