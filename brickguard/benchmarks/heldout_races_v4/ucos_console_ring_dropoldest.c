/* Console input: the USART6 ISR puts received bytes into a ring; when the ring is full it drops
 * the oldest byte to make room. The console task drains the ring. */
#include "ucos3.h"

#define RING_LEN 32U

static OS_TCB s_con_tcb;
static CPU_STK s_con_stk[192];
static volatile uint8_t s_ring[RING_LEN];
static volatile uint32_t g_head;
static volatile uint32_t g_tail;
static uint32_t s_overruns;

void USART6_IRQHandler(void)
{
    CPU_SR_ALLOC();
    CPU_CRITICAL_ENTER();
    OSIntEnter();
    CPU_CRITICAL_EXIT();
    uint8_t c = (uint8_t)USART6->RDR;
    uint32_t next = (g_head + 1U) % RING_LEN;
    if (next == g_tail) {
        g_tail = (g_tail + 1U) % RING_LEN;
        s_overruns++;
    }
    s_ring[g_head] = c;
    g_head = next;
    OS_ERR err;
    (void)OSTaskSemPost(&s_con_tcb, OS_OPT_POST_NONE, &err);
    OSIntExit();
}

static void console_task(void *p_arg)
{
    OS_ERR err;
    CPU_TS ts;
    (void)p_arg;
    for (;;) {
        (void)OSTaskSemPend(0U, OS_OPT_PEND_BLOCKING, &ts, &err);
        while (g_tail != g_head) {
            uint32_t t = g_tail;
            uint8_t c = s_ring[t];
            g_tail = (t + 1U) % RING_LEN;
            console_putc(c);
        }
    }
}

int main(void)
{
    OS_ERR err;
    OSInit(&err);
    USART6->CR1 = 0x2DU;
    NVIC_SetPriority(USART6_IRQn, 7U);
    NVIC_EnableIRQ(USART6_IRQn);
    OSTaskCreate(&s_con_tcb, "console", console_task, NULL, 9U, s_con_stk, 19U, 192U, 0U, 0U, NULL,
                 OS_OPT_TASK_STK_CHK, &err);
    OSStart(&err);
    return 0;
}
