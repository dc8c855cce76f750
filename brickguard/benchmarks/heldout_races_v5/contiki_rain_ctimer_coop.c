/* Rain gauge on a CC2538 node with Contiki-NG: a ctimer polls the tipping bucket's reed contact
 * every 10 ms (debounced), counting tips of 0.2 mm; the report process sends the hourly rainfall
 * and starts the next hour from zero. */
#include "contiki.h"

#define BUCKET_PIN 3

static struct ctimer s_poll_ct;
static struct etimer s_hour_et;
static volatile uint32_t g_tips;
static uint8_t s_last_level;
static uint8_t s_stable;

static void bucket_poll(void *ptr)
{
    (void)ptr;
    uint8_t level = (uint8_t)(adc_sensor_read(BUCKET_PIN) > 2000U);
    if (level != s_last_level) {
        s_last_level = level;
        s_stable = 0U;
    } else if (s_stable < 3U && ++s_stable == 3U && level != 0U) {
        g_tips++;
    }
    ctimer_reset(&s_poll_ct);
}

PROCESS(rain_process, "rain");

PROCESS_THREAD(rain_process, ev, data)
{
    (void)data;
    PROCESS_BEGIN();
    ctimer_set(&s_poll_ct, CLOCK_SECOND / 100U, bucket_poll, NULL);
    etimer_set(&s_hour_et, 3600U * CLOCK_SECOND);
    while (1) {
        PROCESS_WAIT_EVENT_UNTIL(ev == PROCESS_EVENT_TIMER && etimer_expired(&s_hour_et));
        etimer_reset(&s_hour_et);
        uint32_t tips = g_tips;
        printf("rain %lu.%lu mm/h\n", (unsigned long)(tips / 5U), (unsigned long)((tips % 5U) * 2U));
        g_tips = 0U;
    }
    PROCESS_END();
}

int main(void)
{
    platform_init_stage_one();
    platform_init_stage_two();
    process_start(&rain_process, NULL);
    while (1) {
        while (process_run() > 0) {
        }
    }
    return 0;
}
