/* A 64-bit counter the tick handler increments and a task reads: BG103 says it can tear. */
#include <stdint.h>

static inline void __enable_irq(void) { __asm volatile("cpsie i" ::: "memory"); }

volatile uint64_t ticks;
volatile uint32_t count;

void SysTick_Handler(void)
{
    ticks++;
    count++;
}

uint64_t now(void)
{
    return ticks; /* one ldrd on Cortex-M4: the interrupt cannot split it */
}

void bump(void)
{
    count = count + 1u; /* a lost update */
}

int main(void)
{
    __enable_irq(); /* from here on the tick can fire */
    bump();
    return (int)now();
}
