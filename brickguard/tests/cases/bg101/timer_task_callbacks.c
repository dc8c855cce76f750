/* Callbacks a software timer runs in the RTOS's timer task (LiteOS's LOS_SwtmrCreate: the
   swtmr task, of the highest priority), not in an interrupt handler: the timer task still
   preempts the application's tasks between a read and its write-back, so a task's unlocked
   read-modify-write of a credit the callback refills loses the refill; a scheduler lock
   (LOS_TaskLock) holds the timer task off as a critical section would, so the same
   read-modify-write under it is clean, while a count a hardware interrupt also bumps still
   races under the scheduler lock. */
#include "cmsis_stub.h"

typedef void (*SWTMR_PROC_FUNC)(uint32_t arg);
uint32_t LOS_SwtmrCreate(uint32_t interval, uint8_t mode, SWTMR_PROC_FUNC handler,
                         uint16_t *swtmrId, uint32_t arg);
uint32_t LOS_SwtmrStart(uint16_t swtmrId);
void LOS_TaskLock(void);
void LOS_TaskUnlock(void);
void LOS_TaskDelay(uint32_t ticks);

volatile uint32_t credit, locked_credit, edges;
static uint16_t s_refill;

static void refill_cb(uint32_t arg)
{
    (void)arg;
    credit += 5u;
    locked_credit += 5u;
    edges++;
}

void EXTI0_IRQHandler(void)
{
    edges++;
}

int main(void)
{
    LOS_SwtmrCreate(100u, 1u, refill_cb, &s_refill, 0u);
    LOS_SwtmrStart(s_refill);
    __enable_irq();
    for (;;) {
        uint32_t c = credit;
        if (c >= 40u) {
            credit = c - 40u;          /* expect: BG101 */
        }
        LOS_TaskLock();
        c = locked_credit;
        if (c >= 40u) {
            locked_credit = c - 40u;
        }
        edges = edges - 1u;            /* expect: BG102 */
        LOS_TaskUnlock();
        LOS_TaskDelay(5u);
    }
}
