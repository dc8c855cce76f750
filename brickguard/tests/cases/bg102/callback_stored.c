/* A driver written in the program stores the callback it is given in a field, and its
   interrupt handler calls through that field: the callback runs in that interrupt. A field
   only task code calls through is no interrupt entry. */
#include "cmsis_stub.h"

typedef void (*done_fn)(int status);
typedef struct { done_fn on_done; done_fn on_poll; } drv_t;
static drv_t drv;

void drv_set_done(drv_t *d, done_fn fn) { d->on_done = fn; }
void drv_set_poll(drv_t *d, done_fn fn) { d->on_poll = fn; }

void TIM3_IRQHandler(void)
{
    drv.on_done(0);
}

volatile uint32_t completions, polled;

static void app_done(int status)
{
    (void)status;
    completions++;
}

static void app_poll(int status)
{
    (void)status;
    polled++;
}

int main(void)
{
    __enable_irq();
    drv_set_done(&drv, app_done);
    drv_set_poll(&drv, app_poll);
    drv.on_poll(1);                  /* only the task calls through on_poll */
    completions--;                   /* expect: BG102 */
    polled--;
    return 0;
}
