/* Event flags: a periodic ztimer callback posts a sample request every 100 ms and the shell thread
 * posts a command; both set bits of one event word, and main takes the bits with
 * interrupts disabled. */
#include "riot.h"

#define EV_SAMPLE 0x1U
#define EV_SHELL 0x2U

static volatile uint32_t g_events;
static ztimer_t s_sample_timer;
static char s_shell_stack[THREAD_STACKSIZE_DEFAULT];

static void sample_cb(void *arg)
{
    (void)arg;
    g_events |= EV_SAMPLE;
    ztimer_set(ZTIMER_MSEC, &s_sample_timer, 100U);
}

static void *shell_thread(void *arg)
{
    (void)arg;
    for (;;) {
        ztimer_sleep(ZTIMER_MSEC, 250U);
        unsigned state = irq_disable();
        g_events |= EV_SHELL;
        irq_restore(state);
    }
    return NULL;
}

int main(void)
{
    s_sample_timer.callback = sample_cb;
    s_sample_timer.arg = NULL;
    ztimer_set(ZTIMER_MSEC, &s_sample_timer, 100U);
    thread_create(s_shell_stack, sizeof(s_shell_stack), THREAD_PRIORITY_MAIN - 1, THREAD_CREATE_STACKTEST,
                  shell_thread, NULL, "shell");
    for (;;) {
        unsigned state = irq_disable();
        uint32_t ev = g_events;
        g_events = 0U;
        irq_restore(state);
        if (ev != 0U) {
            handle_events(ev);
        }
        ztimer_sleep(ZTIMER_MSEC, 10U);
    }
    return 0;
}
