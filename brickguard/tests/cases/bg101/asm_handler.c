/* A function the port's assembly PendSV handler calls (profile from_asm) runs in interrupt
   context: its accesses are not task code racing the tick. */
#include "cmsis_stub.h"

volatile uint32_t yield_pending;
volatile uint32_t switches;

void SysTick_Handler(void) { yield_pending = 1u; }

void vTaskSwitchContext(void)
{
    if (yield_pending) {
        yield_pending = 0u;          /* interrupt context: handlers do not preempt each other */
    }
}

void count_switch(void)              /* no entry point reaches it: task context (thread mode) */
{
    if (yield_pending) {
        yield_pending = 0u;          /* expect: BG101 */ /* soak: no race here: the handler only sets the 1 the test saw, and this clears it: = the handler first */
    }
}
