/* Button debouncer: a ChibiOS virtual timer samples the key every 10 ms; the UI thread takes the
 * presses counted since its last look and logs them. */
#include "chibios.h"

static virtual_timer_t s_debounce_vt;
static uint32_t s_stable_level;
static uint32_t s_same_count;
static volatile uint32_t g_presses;

static void debounce_cb(virtual_timer_t *vtp, void *p)
{
    (void)vtp;
    (void)p;
    uint32_t level = palReadPad(GPIOA, 0U);
    if (level != s_stable_level) {
        if (++s_same_count >= 3U) {
            s_stable_level = level;
            s_same_count = 0U;
            if (level != 0U) {
                g_presses++;
            }
        }
    } else {
        s_same_count = 0U;
    }
}

static THD_WORKING_AREA(waUi, 256);
static THD_FUNCTION(ui_thread, arg)
{
    (void)arg;
    for (;;) {
        chSysLock();
        uint32_t taken = g_presses;
        g_presses = 0U;
        chSysUnlock();
        if (taken != 0U) {
            log_value(taken);
        }
        chThdSleepMilliseconds(50U);
    }
}

int main(void)
{
    halInit();
    chSysInit();
    chVTObjectInit(&s_debounce_vt);
    chVTSetContinuous(&s_debounce_vt, TIME_MS2I(10), debounce_cb, NULL);
    chThdCreateStatic(waUi, sizeof(waUi), NORMALPRIO + 1U, ui_thread, NULL);
    for (;;) {
        chThdSleepMilliseconds(1000U);
    }
}
