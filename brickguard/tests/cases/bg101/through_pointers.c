/* Globals reached through local pointers: rb = &rx; rb->head is rx.head. */
#include "cmsis_stub.h"

typedef struct {
    uint8_t buf[16];
    uint32_t head;                   /* written by the handler */
    uint32_t tail;                   /* written by the main loop */
} ring_t;

ring_t rx;
volatile uint32_t stats[4];

void USART6_IRQHandler(void)
{
    ring_t *r = &rx;
    r->buf[r->head & 15u] = 1u;
    r->head++;
    volatile uint32_t *s = &stats[1];
    *s = *s + 1u;
}

uint32_t drain(void)
{
    ring_t *rb = &rx;
    uint32_t n = 0;
    while (rb->tail != rb->head) {   /* spins on a head the compiler may keep in a register */ /* expect: BG104 */
        rb->tail++;                  /* the handler never writes tail */
        n++;
    }
    return n;
}

void clear_stats(void)
{
    volatile uint32_t *p = &stats[1];
    volatile uint32_t *q = &stats[2];
    *q = 0u;                         /* another element: no conflict */
    (*p)--;                          /* expect: BG102 */
}

/* Moved along the array (p++): some element of stats, which may be the handler's. */
void decay_stats(void)
{
    volatile uint32_t *p = &stats[2];
    p++;
    (*p)--;                          /* expect: BG102 */ /* soak: no race here: p is &stats[3], the handler writes stats[1] */
}

void halve_stats(void)
{
    for (volatile uint32_t *e = stats; e != &stats[4]; e = e + 1) {
        *e /= 2u;                    /* expect: BG102 */
    }
}

int main(void)
{
    __enable_irq();
    clear_stats();
    decay_stats();
    halve_stats();
    return (int)drain();
}
