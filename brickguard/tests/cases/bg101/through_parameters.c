/* Shared objects passed by pointer into helpers: a parameter that every call site points at
   one global is that global. */
#include "cmsis_stub.h"

typedef struct {
    volatile uint8_t buf[16];
    volatile uint32_t head;          /* the handler's */
    volatile uint32_t count;         /* both sides update it */
} ring_t;

ring_t rx;
ring_t log_ring;                     /* passed to the same helper as rx elsewhere: not one global */

static void ring_put(ring_t *r, uint8_t b)   /* only ever called with &rx */
{
    r->buf[r->head & 15u] = b;
    r->head++;
    r->count++;
}

static void ring_take(ring_t *r)     /* only ever called with &rx, from the main loop */
{
    r->count--;                      /* expect: BG102 */
}

static void ring_reset(ring_t *r)    /* called with &rx and with &log_ring: not followed */
{
    r->count--;                      /* rx's call is masked (rx_reset): no race on either ring */
}

static void rx_reset(void)
{
    __disable_irq();                 /* USART3_IRQHandler also updates rx.count */
    ring_reset(&rx);
    __enable_irq();
}

void USART3_IRQHandler(void)
{
    ring_put(&rx, 0x55u);
}

int main(void)
{
    __enable_irq();
    ring_take(&rx);
    rx_reset();
    ring_reset(&log_ring);
    return 0;
}

/* Handed on: a helper passes its own parameter to another helper. */
ring_t tx;

static void tx_bump(ring_t *r)       /* reached only through tx_kick(&tx) */
{
    r->count--;                      /* expect: BG102 */
}

static void tx_kick(ring_t *r)
{
    tx_bump(r);
}

void USART6_IRQHandler(void)
{
    tx.count++;
}

void tx_task(void)
{
    ring_t *q = &tx;
    tx_kick(q);                      /* a local pointer to tx handed on */
}
