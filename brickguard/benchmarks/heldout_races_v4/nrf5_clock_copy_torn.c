/* Desk clock: a repeated 1 s app_timer advances the time of day; main shows it and checks the
 * alarm after every wake-up. */
#include "nrf5_sdk.h"

struct tod {
    uint32_t h;
    uint32_t m;
    uint32_t s;
};

APP_TIMER_DEF(m_clock_timer);
static volatile struct tod g_tod = { 12U, 0U, 0U };

static void clock_timeout(void *p_context)
{
    (void)p_context;
    if (++g_tod.s == 60U) {
        g_tod.s = 0U;
        if (++g_tod.m == 60U) {
            g_tod.m = 0U;
            g_tod.h = (g_tod.h + 1U) % 24U;
        }
    }
}

int main(void)
{
    APP_ERROR_CHECK(app_timer_init());
    APP_ERROR_CHECK(app_timer_create(&m_clock_timer, APP_TIMER_MODE_REPEATED, clock_timeout));
    APP_ERROR_CHECK(app_timer_start(m_clock_timer, APP_TIMER_TICKS(1000U), NULL));
    for (;;) {
        struct tod now;
        now.h = g_tod.h;
        now.m = g_tod.m;
        now.s = g_tod.s;
        display_time(now.h, now.m, now.s);
        alarm_check(now.h, now.m);
        __WFE();
    }
}
