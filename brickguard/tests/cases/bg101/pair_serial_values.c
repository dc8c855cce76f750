/* Two pairs whose interleaving gives what a serial order gives. W-W-R of two updates that
   commute (the task adds a correction in a critical section, the handler counts a step, the task reads the sum:
   ``steps``, the value "handler first" gives); W-R-W whose first store puts back the value the
   object holds from reset (``level = 0`` in main before any other store: the handler between
   reads the 0 it read before). Their twins race: a plain store after the handler's update
   (``speed``: the read does not get back what was written, the handler's step is gone), and
   a first store of a value the object never held (``gain = 7``, then the real value). */
#include "cmsis_stub.h"

int32_t correction(void);
int32_t sample(void);
void apply(int32_t v);
static volatile int32_t steps, speed;
static volatile int32_t level, gain, seen;

void TIM3_IRQHandler(void)
{
    steps++;
    speed++;
    seen = level + gain;
}

int main(void)
{
    __enable_irq();
    level = 0;
    gain = 7;
    level = sample();
    gain = sample();                     /* expect: BG101 `gain` */
    for (;;) {
        int32_t c = correction();
        __disable_irq();
        steps += c;
        __enable_irq();
        apply(steps);
        speed = correction();
        apply(speed);                    /* expect: BG101 `speed` */
    }
}
