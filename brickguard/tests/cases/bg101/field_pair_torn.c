/* Two fields of one struct that a handler writes in one run, read by the task one right after
   the other: a run between the two reads leaves one field of one run and the other of the
   next. Not in a critical section, nor between two reads of a sequence count the handler
   updates around its writes, nor for fields the task reads on different paths, nor for fields
   the handler writes in different arms (never together). */
#include "cmsis_stub.h"

typedef enum { TC0_IRQn = 7 } IRQn_Type;
void NVIC_EnableIRQ(IRQn_Type irqn);
uint32_t read_ra(void);
uint32_t read_rb(void);
uint32_t status(void);
void report(uint32_t a, uint32_t b);

struct meas {
    uint32_t period;
    uint32_t high;
    uint32_t lo_errs;
    uint32_t hi_errs;
};

static volatile struct meas g_m, g_c, g_s, g_e;
static volatile uint32_t g_seq;

void TC0_IRQHandler(void)
{
    uint32_t rise = read_ra();
    uint32_t fall = read_rb();
    g_m.period = rise;
    g_m.high = fall - rise;
    g_c.period = rise;
    g_c.high = fall;
    g_seq++;
    g_s.period = rise;
    g_s.high = fall;
    g_seq++;
    if (status() != 0u) {
        g_e.lo_errs = rise;
    } else {
        g_e.hi_errs = fall;
    }
}

int main(void)
{
    NVIC_EnableIRQ(TC0_IRQn);
    for (;;) {
        uint32_t per = g_m.period;
        uint32_t high = g_m.high;          /* expect: BG101 */
        report(per, high);
        __disable_irq();
        per = g_c.period;
        high = g_c.high;                   /* no race: both inside one critical section */
        __enable_irq();
        report(per, high);
        uint32_t s1, s2;
        do {
            s1 = g_seq;
            per = g_s.period;
            high = g_s.high;               /* no race: the sequence count is read around them */
            s2 = g_seq;
        } while (s1 != s2 || (s1 & 1u) != 0u);
        report(per, high);
        uint32_t lo = g_e.lo_errs;
        uint32_t hi = g_e.hi_errs;         /* no race: the handler writes them in two arms */
        report(lo, hi);
    }
}
