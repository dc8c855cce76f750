/* Indices with a constant stride and offset: count[2*id] and count[2*id + 1] never name one
   element (even and odd), while count[4*id + 3] and count[2*id + 1] can (both odd). */
#include "cmsis_stub.h"

volatile uint32_t count[16];
volatile uint32_t pairs[16];
volatile uint32_t id_reg;

void ADC_IRQHandler(void)
{
    uint32_t id = id_reg & 3u;
    count[2u * id + 1u]++;
    pairs[2u * id + 1u]++;
}

int main(void)
{
    __enable_irq();
    for (;;) {
        for (uint32_t id = 0u; id < 4u; id++) {
            count[2u * id]++;            /* even elements: the handler counts odd ones */
            count[id * 2u + 2u]++;       /* even again (the offset taken modulo the stride) */
            pairs[4u * id + 3u]++;       /* expect: BG102 */ /* soak: no race here: id_reg is RAM that no code writes, 0 from reset, so the handler counts only count[1] and pairs[1], which this line (pairs[3], [7], [11], [15]) never is; with id_reg set by main soak confirms it (tests/test_soak.py, tests/soak/stride.c) */
            pairs[id]++;                 /* expect: BG102 */
        }
    }
}
