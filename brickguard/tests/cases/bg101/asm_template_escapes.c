/* A save/restore pair written as inline assembly with its instructions separated by "\n\t"
   (NuttX's up_irq_save shape): the section is read from the template, whatever its escapes. */
#include "cmsis_stub.h"

typedef enum { TIM6_IRQn = 54 } IRQn_Type;
void NVIC_EnableIRQ(IRQn_Type irq);

static inline uint32_t flags_save(void)
{
    uint32_t m;
    __asm volatile("\tmrs %0, primask\n\tcpsid i\n" : "=r"(m) : : "memory");
    return m;
}
static inline void flags_restore(uint32_t m)
{
    __asm volatile("\ttst %0, #1\n\tbne.n 1f\n\tcpsie i\n1:\n" : : "r"(m) : "memory");
}

struct acc { uint32_t n; uint32_t sum; };
volatile struct acc lat, jitter;

void TIM6_IRQHandler(void)
{
    lat.n++;
    lat.sum += 3u;
    jitter.n++;
}

void report(uint32_t a, uint32_t b);

int main(void)
{
    NVIC_EnableIRQ(TIM6_IRQn);
    for (;;) {
        uint32_t f = flags_save();
        uint32_t n = lat.n;
        lat.n = 0u;              /* inside the section: TIM6 cannot fire between */
        flags_restore(f);
        uint32_t j = jitter.n;
        jitter.n = 0u;           /* expect: BG101 */
        report(n, j);
    }
}
