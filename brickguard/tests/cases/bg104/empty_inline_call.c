/* A call is a compiler barrier only when the compiler cannot see that it touches no memory: a
   static inline function with an empty body (pico-sdk's tight_loop_contents) or one that only
   works on locals is inlined to nothing, so a poll of a plain flag around it may still be one
   load. A visible body that touches memory (a global, a pointer, an asm "memory" clobber, a call)
   stays a barrier. */
#include "cmsis_stub.h"

static inline void tight_loop_contents(void) {}
static inline void spin_count(void) { volatile int n = 0; (void)n; }
static inline void dmb(void) { __asm volatile("dmb" ::: "memory"); }
static uint32_t idle_turns;
static inline void count_idle(void) { idle_turns++; }

uint32_t warm, cold, ready, done;

void TIM3_IRQHandler(void)
{
    warm = 1u;
    cold = 1u;
    ready = 1u;
    done = 1u;
}

int main(void)
{
    __enable_irq();
    while (warm == 0u) {             /* expect: BG104 */
        tight_loop_contents();
    }
    while (cold == 0u) {             /* expect: BG104 */
        spin_count();
    }
    while (ready == 0u) {            /* the asm clobbers memory: reloaded */
        dmb();
    }
    while (done == 0u) {             /* a global is written in the body: reloaded */
        count_idle();
    }
    return (int)idle_turns;
}
