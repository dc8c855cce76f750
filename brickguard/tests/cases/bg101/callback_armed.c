/* A callback handed to a driver cannot run before the call that hands it over: task code's
   read-then-clear before that call is no race, even after another call that may let some
   interrupt fire (board_init, whose source is not here); the same pair after the hand-over
   is. The callback of a second driver, handed over first, races with both. */
#include "cmsis_stub.h"

typedef void (*acme_timer_handler_t)(void *ctx);
int acme_timer_init(uint32_t period_us, acme_timer_handler_t handler, void *ctx);
void acme_vt_arm(uint32_t delay, void (*fn)(void *), void *p);
void board_init(void);
void report(uint32_t n);

volatile uint32_t events, alarms;

static void on_tick(void *ctx)       /* the timer's interrupt, from acme_timer_init on */
{
    (void)ctx;
    events++;
}

static void on_alarm(void *p)        /* the kernel timer's interrupt, from acme_vt_arm on */
{
    (void)p;
    alarms++;
}

static void drain(void)              /* called only before on_tick is handed over */
{
    uint32_t n = events;
    events = 0u;                     /* no race: on_tick cannot run yet */
    uint32_t a = alarms;
    alarms = 0u;                     /* expect: BG101 */
    report(n + a);
}

int main(void)
{
    board_init();
    acme_vt_arm(100u, on_alarm, NULL);
    drain();
    (void)acme_timer_init(1000u, on_tick, NULL);
    for (;;) {
        uint32_t m = events;
        events = 0u;                 /* expect: BG101 */
        report(m);
    }
}
