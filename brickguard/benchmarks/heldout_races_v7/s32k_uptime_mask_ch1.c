/* Data logger on an S32K144: LPIT0 channel 0 ticks every 1 ms and keeps the microsecond uptime
 * (64-bit, it must not wrap within the product's life); channel 1 paces the 100 Hz sampling.
 * main stamps each sample with the uptime. */
#include "s32k_sdk.h"

static volatile uint64_t s_uptime_us;
static volatile uint32_t s_sample_due;
static volatile uint32_t s_overruns;
static uint32_t s_log_idx;
static uint64_t s_log_t[128];

void LPIT0_Ch0_IRQHandler(void)
{
    LPIT_DRV_ClearInterruptFlagTimerChannels(INST_LPIT1, 1UL << 0);
    s_uptime_us += 1000U;
}

void LPIT0_Ch1_IRQHandler(void)
{
    LPIT_DRV_ClearInterruptFlagTimerChannels(INST_LPIT1, 1UL << 1);
    if (s_sample_due != 0U) {
        s_overruns++;
    }
    s_sample_due = 1U;
}

static uint64_t uptime_us(void)
{
    uint64_t t;
    INT_SYS_DisableIRQ(LPIT0_Ch1_IRQn);
    t = s_uptime_us;
    INT_SYS_EnableIRQ(LPIT0_Ch1_IRQn);
    return t;
}

int main(void)
{
    static const lpit_user_channel_config_t ch0 = { 48000U, false, true };
    static const lpit_user_channel_config_t ch1 = { 480000U, false, true };
    CLOCK_SYS_Init_Default();
    LPIT_DRV_Init(INST_LPIT1, NULL);
    (void)LPIT_DRV_InitChannel(INST_LPIT1, 0U, &ch0);
    (void)LPIT_DRV_InitChannel(INST_LPIT1, 1U, &ch1);
    INT_SYS_SetPriority(LPIT0_Ch0_IRQn, 2U);
    INT_SYS_SetPriority(LPIT0_Ch1_IRQn, 4U);
    INT_SYS_EnableIRQ(LPIT0_Ch0_IRQn);
    INT_SYS_EnableIRQ(LPIT0_Ch1_IRQn);
    LPIT_DRV_StartTimerChannels(INST_LPIT1, 0x3U);

    for (;;) {
        if (s_sample_due != 0U) {
            s_sample_due = 0U;
            s_log_t[s_log_idx] = uptime_us();
            s_log_idx = (s_log_idx + 1U) % 128U;
        }
    }
}
