/* Callbacks an RTOS runs in a thread, not an interrupt: Mynewt's event-queue callouts
   (os_callout_init: the task serving the queue runs them) and Contiki's callback timers
   (ctimer_set: the ctimer process). A callout that reads a count a pin interrupt bumps and then
   clears it races with that interrupt (R-W-W: a press between is lost); a ctimer callback that
   updates a total the process also updates does not race with it (both run one at a time in
   thread context). Contiki's rtimer_set runs its callback in the timer interrupt: its update of
   a total main also updates is a lost update. */
#include "cmsis_stub.h"

struct os_event;
typedef void os_event_fn(struct os_event *ev);
struct os_callout { int armed; };
void os_callout_init(struct os_callout *c, void *evq, os_event_fn *ev_cb, void *arg);
struct ctimer { int armed; };
void ctimer_set(struct ctimer *c, uint32_t t, void (*f)(void *), void *ptr);
struct rtimer { int armed; };
void rtimer_set(struct rtimer *r, uint32_t t, uint32_t d, void (*f)(struct rtimer *, void *),
                void *ptr);
void report(uint32_t n);

volatile uint32_t presses, total, ticks;
static struct os_callout s_report;
static struct ctimer s_sum;
static struct rtimer s_fast;

void GPIOTE_IRQHandler(void)
{
    presses++;
}

static void report_cb(struct os_event *ev)
{
    (void)ev;
    report(presses);
    presses = 0u;                          /* expect: BG101 */
}

static void sum_cb(void *ptr)
{
    (void)ptr;
    total = total + 1u;
}

static void fast_cb(struct rtimer *r, void *ptr)
{
    (void)r;
    (void)ptr;
    ticks = ticks + 1u;
}

int main(void)
{
    os_callout_init(&s_report, 0, report_cb, 0);
    ctimer_set(&s_sum, 10u, sum_cb, 0);
    rtimer_set(&s_fast, 1u, 0u, fast_cb, 0);
    __enable_irq();
    for (;;) {
        total = total + 2u;
        ticks = ticks + 2u;                /* expect: BG102 */
    }
}
