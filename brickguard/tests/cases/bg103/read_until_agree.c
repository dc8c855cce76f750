/* A wide value read until two reads agree (``a = x; b = x; while (a != b) { a = b; b = x; }``):
   a read torn by the handler's carry differs from the next, whole one, so the loop ends only on
   a whole value; a sequence lock's two reads of its count (``while (s0 != s1)``) are the same
   retry, no R-W-R. Torn still: two reads compared once by an ``if`` (no retry: a torn pair
   that happens to differ is dropped, but nothing reads again),
   and a read into a local the loop compares with another object's read. */
#include "cmsis_stub.h"

static volatile uint64_t energy, spent, used;
static volatile uint32_t seq, width;
static volatile uint64_t other;
static volatile uint32_t rate;

void show(uint64_t v);

void TIM2_IRQHandler(void)
{
    energy += rate;
    spent += rate;
    used += rate;
    other += rate;
    seq++;
    width = rate;
    seq++;
}

static uint64_t energy_read(void)
{
    uint64_t a = energy;
    uint64_t b = energy;
    while (a != b) {
        a = b;
        b = energy;
    }
    return a;
}

static uint32_t width_read(void)
{
    uint32_t s0, s1, w;
    do {
        s0 = seq;
        w = width;
        s1 = seq;
    } while ((s0 & 1u) != 0u || s0 != s1);
    return w;
}

int main(void)
{
    __enable_irq();
    for (;;) {
        show(energy_read());
        show(width_read());
        uint64_t p = spent;                /* expect: BG103 */
        uint64_t q = spent;                /* expect: BG103 */
        if (p == q) {
            show(p);
        }
        uint64_t u = used;                 /* expect: BG103 */
        uint64_t o = other;                /* expect: BG103 */
        while (u != o) {
            u = o;
            o = other;                     /* expect: BG103 */
        }
        show(u);
    }
}
