/* A kernel's critical section that writes BASEPRI from its argument (uC/CPU's CPU_SR_Save
   shape): the boundary comes from the program's own macros, the handlers more urgent than it
   run inside the section, the ones at or below it are masked. */
#include "cmsis_stub.h"

#define PRIO_BITS 4u
#define KERNEL_BOUNDARY 5u

typedef enum { TIM3_IRQn = 29, CAN1_IRQn = 20 } IRQn_Type;
void NVIC_SetPriority(IRQn_Type irq, uint32_t priority);
void NVIC_EnableIRQ(IRQn_Type irq);
uint32_t __get_BASEPRI(void);
void __set_BASEPRI(uint32_t value);

static inline uint32_t sr_swap(uint32_t new_level)
{
    uint32_t old = __get_BASEPRI();
    __set_BASEPRI(new_level);
    return old;
}
static inline void sr_put_back(uint32_t saved) { __set_BASEPRI(saved); }
#define LOCK() do { sr = sr_swap(KERNEL_BOUNDARY << (8u - PRIO_BITS)); } while (0)
#define UNLOCK() do { sr_put_back(sr); } while (0)

volatile uint32_t fast_steps;    /* TIM3, priority 1: above the boundary */
volatile uint32_t slow_frames;   /* CAN1, priority 7: below it */

void TIM3_IRQHandler(void)
{
    fast_steps++;
}

void CAN1_IRQHandler(void)
{
    slow_frames++;
}

int main(void)
{
    uint32_t sr = 0u;
    NVIC_SetPriority(TIM3_IRQn, 1u);
    NVIC_SetPriority(CAN1_IRQn, 7u);
    NVIC_EnableIRQ(TIM3_IRQn);
    NVIC_EnableIRQ(CAN1_IRQn);
    for (;;) {
        LOCK();
        fast_steps -= 2u;        /* expect: BG102 */
        slow_frames -= 2u;       /* BASEPRI 0x50 masks CAN1 at 7 */
        UNLOCK();
    }
}
