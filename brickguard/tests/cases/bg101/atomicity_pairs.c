/* Atomicity violations between two task accesses of one word (each access alone is atomic),
   and the shapes that look like them and are not. */
#include "cmsis_stub.h"

volatile uint32_t level, mode, stage, seen, armed, count;

void EXTI1_IRQHandler(void)
{
    level = 3u;                      /* writes level */
    if (stage == 1u) {               /* reads stage */
        seen = 1u;
    }
    mode = 2u;
    armed = 1u;
    count = count + 1u;
}

void check_then_use(void)
{
    if (level > 2u) {                /* R ... */
        process(0, level);           /* expect: BG101 */ /* soak: no race here: the handler only ever writes 3, the value the test saw */
    }
}

void lost_update(void)
{
    uint32_t m = mode;               /* R ... */
    process(0, m);
    mode = 0u;                       /* expect: BG101 */
}

void intermediate(void)
{
    stage = 1u;                      /* W ... the handler may see 1 */
    stage = 2u;                      /* expect: BG101 */
}

void read_back(void)
{
    level = 0u;                      /* W ... */
    if (level == 0u) {               /* expect: BG101 */
        process(0, 0);
    }
}

void not_pairs(uint32_t x)
{
    armed = 0u;                      /* one store alone: atomic */
    while (!armed) {                 /* a poll waits for the handler's write on purpose */
    }
    if (x) {
        mode = 1u;                   /* the two writes are in different arms */
    } else {
        mode = 2u;
    }
    process(0, seen);                /* the handler only ever writes seen: one read is whole */
    if (count) {                     /* checked outside ... */
        __disable_irq();
        count = 0u;                  /* ... and taken inside a critical section */
        __enable_irq();
    }
}

int main(void)
{
    __enable_irq();                  /* from here on a handler can fire */
    check_then_use();
    lost_update();
    intermediate();
    read_back();
    not_pairs(1u);
    return 0;
}

/* The first access in an arm that returns: the second is not on its path. */
volatile uint32_t link_state;

void USART2_IRQHandler(void)
{
    if (link_state == 1u) {
        link_state = 2u;
    }
}

int link_open(uint32_t tries)
{
    if (tries == 0u) {
        link_state = 0u;
        return -1;
    }
    link_state = 1u;                 /* after the arm that returned: no W-R-W with line above */
    return 0;
}
