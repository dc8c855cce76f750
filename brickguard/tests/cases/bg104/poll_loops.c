/* BG104 claims a register copy: a plain object read on every turn of a loop that calls nothing
   (the compiler may load it once before the loop). A call in the loop makes the compiler load
   every global again, and a read in no loop sees the handler's last store: neither is BG104's.
   `__NOP` is an asm statement without a memory clobber: no barrier. */
#include "cmsis_stub.h"

static inline void __NOP(void) { __asm volatile("nop"); }
void idle_hook(void);

uint32_t ready_a, ready_b, ready_c, ready_d, level, mode;
/* a macro's statement block: runs once, no loop */
#define APPLY(m) do { if ((m) != 0u) { level = 1u; } } while (0U)

void TIM2_IRQHandler(void)
{
    ready_a = 1u;
    ready_b = 1u;
    ready_c = 1u;
    ready_d = 1u;
    level = 3u;
    mode = 1u;
}

int main(void)
{
    __enable_irq();
    while (ready_a == 0u) {          /* expect: BG104 */
    }
    while (ready_b == 0u) {          /* the call reloads it on every turn */
        idle_hook();
    }
    while (ready_c == 0u) {          /* expect: BG104 */
        __NOP();
    }
    for (;;) {
        if (ready_d != 0u) {         /* expect: BG104 */
            break;
        }
    }
    APPLY(mode);                     /* tested once: do { } while (0) is no loop */
    return (int)level;               /* read once, in no loop */
}
