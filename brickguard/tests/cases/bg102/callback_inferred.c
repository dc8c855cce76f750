/* A function handed by pointer to a driver the program does not define runs in interrupt
   context when the call says it takes a handler (the parameter's name or type says isr/irq,
   or handler/callback for a set-up call): here an SDK no table lists. Look-alikes: a
   comparison callback for qsort, a UI event callback, a callback also called directly. */
#include "cmsis_stub.h"

typedef void (*acme_timer_handler_t)(void *ctx);
typedef struct { uint32_t period_us; } acme_timer_cfg_t;
int acme_timer_init(const acme_timer_cfg_t *cfg, acme_timer_handler_t handler, void *ctx);
typedef void (*ui_event_cb_t)(void *e);
void ui_obj_add_event_cb(void *obj, ui_event_cb_t event_cb, int filter, void *user);
void qsort(void *base, size_t n, size_t size, int (*compar)(const void *, const void *));

volatile uint32_t ticks, clicks, polls;
static const acme_timer_cfg_t cfg = {1000};
static int values[4];

static void on_tick(void *ctx)       /* runs in the timer's interrupt */
{
    (void)ctx;
    ticks++;
}

static void on_click(void *e)        /* runs in the UI loop: task context */
{
    (void)e;
    clicks++;
}

static void on_poll(void *ctx)       /* passed to the driver and called directly: not only ISR */
{
    (void)ctx;
    polls++;
}

static int cmp(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

int main(void)
{
    __enable_irq();
    acme_timer_init(&cfg, on_tick, NULL);
    acme_timer_init(&cfg, on_poll, NULL);
    ui_obj_add_event_cb(NULL, on_click, 0, NULL);
    qsort(values, 4, sizeof values[0], cmp);
    on_poll(NULL);
    ticks--;                         /* expect: BG102 */
    clicks--;
    polls--;
    return 0;
}
