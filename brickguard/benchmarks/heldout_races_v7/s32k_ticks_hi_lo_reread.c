/* Event timestamping on an S32K144: LPIT0 channel 2 ticks at 10 kHz and keeps a 64-bit tick count
 * as two words (the handler carries into the high word when the low word wraps). Readers in main
 * take the high word, the low word, and the high word again, and retry until both high reads agree,
 * so no lock is needed. */
#include "s32k_sdk.h"

static volatile uint32_t s_ticks_lo;
static volatile uint32_t s_ticks_hi;
static volatile uint32_t s_edge_pending;
static uint64_t s_events[64];
static uint32_t s_nevents;

void LPIT0_Ch2_IRQHandler(void)
{
    LPIT_DRV_ClearInterruptFlagTimerChannels(INST_LPIT1, 1UL << 2);
    s_ticks_lo++;
    if (s_ticks_lo == 0U) {
        s_ticks_hi++;
    }
}

void PORTE_IRQHandler(void)
{
    PINS_DRV_ClearPinIntFlagCmd(PORTE, 4U);
    s_edge_pending = 1U;
}

static uint64_t ticks_now(void)
{
    uint32_t hi;
    uint32_t lo;
    do {
        hi = s_ticks_hi;
        lo = s_ticks_lo;
    } while (hi != s_ticks_hi);
    return ((uint64_t)hi << 32) | lo;
}

int main(void)
{
    static const lpit_user_channel_config_t ch2 = { 4800U, false, true };
    CLOCK_SYS_Init_Default();
    LPIT_DRV_Init(INST_LPIT1, NULL);
    (void)LPIT_DRV_InitChannel(INST_LPIT1, 2U, &ch2);
    INT_SYS_SetPriority(LPIT0_Ch2_IRQn, 1U);
    INT_SYS_SetPriority(PORTE_IRQn, 5U);
    INT_SYS_EnableIRQ(LPIT0_Ch2_IRQn);
    INT_SYS_EnableIRQ(PORTE_IRQn);
    LPIT_DRV_StartTimerChannels(INST_LPIT1, 1UL << 2);

    for (;;) {
        if (s_edge_pending != 0U) {
            s_edge_pending = 0U;
            if (s_nevents < 64U) {
                s_events[s_nevents++] = ticks_now();
            }
        }
    }
}
