/* Long time base: the 32-bit STIMER counts 32 kHz ticks; its overflow interrupt counts the wraps,
 * and main builds a 64-bit tick count from the wraps and the counter for its event log. */
#include "am_mcu_apollo.h"

static volatile uint32_t g_stimer_wraps;

void am_stimer_isr(void)
{
    uint32_t status = am_hal_stimer_int_status_get(false);
    am_hal_stimer_int_clear(status);
    if ((status & AM_HAL_STIMER_INT_OVERFLOW) != 0U) {
        g_stimer_wraps++;
    }
}

static uint64_t ticks_now(void)
{
    uint32_t wraps;
    uint32_t count;
    AM_CRITICAL_BEGIN
    wraps = g_stimer_wraps;
    count = am_hal_stimer_counter_get();
    if ((am_hal_stimer_int_status_get(false) & AM_HAL_STIMER_INT_OVERFLOW) != 0U &&
        count < 0x80000000U) {
        wraps++;
    }
    AM_CRITICAL_END
    return ((uint64_t)wraps << 32) | count;
}

int main(void)
{
    am_bsp_low_power_init();
    am_hal_stimer_config(AM_HAL_STIMER_CFG_RUN | AM_HAL_STIMER_XTAL_32KHZ);
    am_hal_stimer_int_clear(AM_HAL_STIMER_INT_OVERFLOW);
    am_hal_stimer_int_enable(AM_HAL_STIMER_INT_OVERFLOW);
    NVIC_SetPriority(STIMER_IRQn, AM_IRQ_PRIORITY_DEFAULT);
    NVIC_EnableIRQ(STIMER_IRQn);
    uint64_t last = ticks_now();
    for (;;) {
        am_hal_delay_us(250000U);
        uint64_t now = ticks_now();
        log_time(now - last);
        last = now;
    }
}
