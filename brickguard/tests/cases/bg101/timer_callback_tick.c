/* A kernel's timer callback (a body-less *_timer_create that keeps the function, its words
   naming no peripheral) runs from the tick interrupt, SysTick, at the least urgent level when
   the code sets no priority for it (CMSIS's SysTick_Config and the RTOS ports put it there):
   the DMA handler at level 3 preempts it between its two reads of `current`. */
#include <stdint.h>

#define __NVIC_PRIO_BITS 4u
typedef enum { SysTick_IRQn = -1, DMA2_Stream0_IRQn = 56 } IRQn_Type;
void NVIC_SetPriority(IRQn_Type irq, uint32_t prio);
void NVIC_EnableIRQ(IRQn_Type irq);
typedef struct k_timer *k_timer_t;
k_timer_t k_timer_create(const char *name, void (*fn)(void *), void *arg, uint32_t ticks);
int k_timer_start(k_timer_t t);

volatile int32_t current;
volatile uint32_t charge;

void DMA2_Stream0_IRQHandler(void)
{
    current = current / 2 - 10;
}

static void tick_cb(void *arg)
{
    (void)arg;
    charge += (uint32_t)(current > 0 ? current : 0);   /* expect: BG101 */
}

int main(void)
{
    NVIC_SetPriority(DMA2_Stream0_IRQn, 3u);
    NVIC_EnableIRQ(DMA2_Stream0_IRQn);
    (void)k_timer_start(k_timer_create("tick", tick_cb, 0, 100u));
    for (;;) {
    }
}
