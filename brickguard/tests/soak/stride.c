/* The handler's element depends on id_reg, which main sets before its loop: from reset the
   handler touches pairs[1], from where the loop runs pairs[3], which the loop updates too. */
#include <stdint.h>

static inline void __enable_irq(void) { __asm volatile("cpsie i" ::: "memory"); }

volatile uint32_t pairs[16];
volatile uint32_t id_reg;

void ADC_IRQHandler(void)
{
    pairs[2u * (id_reg & 3u) + 1u]++;
}

int main(void)
{
    __enable_irq();
    id_reg = 1u;
    for (volatile int wait = 0; wait < 4; wait++) {
    }                                /* a while before the loop */
    for (;;) {
        for (uint32_t id = 0u; id < 4u; id++) {
            pairs[4u * id + 3u]++;       /* lost update when id = 0 */
        }
    }
}
