/* A wrap count kept by the counter's overflow interrupt and read with the counter itself: read
   one after the other outside a critical section, an overflow between the two pairs the old
   wrap count with the new, small count (``lp_wraps``: a time one counter period in the past);
   read both inside one, the pair is of one moment (``rt_wraps``). */
#include "cmsis_stub.h"

uint32_t lptmr_count_get(void);
uint32_t lptmr_status(void);
uint32_t rtc_counter_read(void);
uint32_t rtc_status(void);

static volatile uint32_t lp_wraps, rt_wraps;

void LPTMR0_IRQHandler(void)
{
    if ((lptmr_status() & 1u) != 0u) {
        lp_wraps++;
    }
}

void RTC_IRQHandler(void)
{
    if ((rtc_status() & 2u) != 0u) {
        rt_wraps++;
    }
}

static uint64_t lp_now(void)
{
    uint32_t w = lp_wraps;               /* expect: BG101 `lp_wraps` */
    uint32_t c = lptmr_count_get();
    return ((uint64_t)w << 32) | c;
}

static uint64_t rt_now(void)
{
    __disable_irq();
    uint32_t w = rt_wraps;
    uint32_t c = rtc_counter_read();
    __enable_irq();
    return ((uint64_t)w << 32) | c;
}

int main(void)
{
    __enable_irq();
    for (;;) {
        process((const uint8_t *)0, (uint32_t)(lp_now() + rt_now()));
    }
}
