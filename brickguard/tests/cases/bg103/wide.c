/* Objects wider than the 32-bit word, shared with an interrupt handler. */
#include "cmsis_stub.h"

volatile uint64_t ticks;
struct position { int32_t x; int32_t y; };
volatile struct position pos;
volatile uint8_t block[16];
volatile uint32_t ticks32;

void SysTick_Handler(void)
{
    ticks++;
    ticks32++;
}

void EXTI1_IRQHandler(void)
{
    struct position p = {1, 2};
    pos = p;
    block[3] = 1;
}

uint64_t now(void)
{
    return ticks;                    /* expect: BG103 */ /* soak: no race here on Cortex-M4: one ldrd, which an interrupt does not split */
}

uint64_t now_safe(void)
{
    uint64_t t;
    __disable_irq();
    t = ticks;
    __enable_irq();
    return t;
}

int main(void)
{
    __enable_irq();                  /* from here on a handler can fire */
    struct position copy = pos;      /* expect: BG103 */
    uint8_t local[16];
    memcpy(local, (const void *)block, sizeof local);     /* expect: BG103 */ /* soak: no race here: the handler writes one byte of block, which a copy sees old or new */
    uint32_t t32 = ticks32;          /* one word: cannot tear */
    return (int)(now() + now_safe() + (uint64_t)copy.x + local[0] + t32);
}
