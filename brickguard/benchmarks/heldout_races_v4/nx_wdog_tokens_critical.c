/* Telemetry rate limiter: a NuttX watchdog timer refills a token bucket every 10 ms; the app
 * spends one token per radio frame and waits when the bucket is empty. */
#include "nuttx.h"

#define TOKENS_MAX 40U
#define TOKENS_PER_TICK 5U

static struct wdog_s s_refill_wdog;
static volatile uint32_t g_tokens;
static uint8_t s_frame[64];

static void refill_cb(wdparm_t arg)
{
    (void)arg;
    if (g_tokens + TOKENS_PER_TICK <= TOKENS_MAX) {
        g_tokens += TOKENS_PER_TICK;
    } else {
        g_tokens = TOKENS_MAX;
    }
    (void)wd_start(&s_refill_wdog, MSEC2TICK(10), refill_cb, 0);
}

int main(int argc, char *argv[])
{
    (void)argc;
    (void)argv;
    g_tokens = TOKENS_MAX;
    (void)wd_start(&s_refill_wdog, MSEC2TICK(10), refill_cb, 0);
    for (;;) {
        int len = radio_next_frame(s_frame, sizeof(s_frame));
        if (len <= 0) {
            continue;
        }
        while (g_tokens == 0U) {
            usleep(1000U);
        }
        irqstate_t flags = enter_critical_section();
        g_tokens--;
        leave_critical_section(flags);
        (void)radio_send(s_frame, (size_t)len);
    }
    return 0;
}
