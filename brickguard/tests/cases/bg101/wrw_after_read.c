/* W-R-W with the task's own read between the two stores: ``x = a; if (x > m) x = m;``. The
   handler that reads between them sees the value before the clamp, one the program never
   means to publish. A store kept in a local and published once is whole. */
#include "cmsis_stub.h"

#define DUTY_MAX 800u
volatile uint32_t duty, duty_once, target;
volatile uint32_t applied;

void TIM2_IRQHandler(void)
{
    applied = duty + duty_once;
}

static void recompute(void)
{
    duty = target * 3u / 2u;
    if (duty > DUTY_MAX) {
        duty = DUTY_MAX;                 /* expect: BG101 */
    }
    uint32_t d = target * 3u / 2u;
    duty_once = d > DUTY_MAX ? DUTY_MAX : d;
}

int main(void)
{
    __enable_irq();
    for (;;) {
        recompute();
    }
}
