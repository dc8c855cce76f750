/* CAN gateway flow control: the forwarder task earns transmit credits and adds them; the CAN
 * receive ISR (kernel aware) spends one credit per frame it forwards at once. */
#include "ucos3.h"

static OS_TCB s_fwd_tcb;
static CPU_STK s_fwd_stk[256];
static volatile CPU_INT32U g_credit = 16U;
static CPU_INT32U s_dropped;

void CAN1_RX0_IRQHandler(void)
{
    CPU_SR_ALLOC();
    CPU_CRITICAL_ENTER();
    OSIntEnter();
    CPU_CRITICAL_EXIT();
    uint32_t id = CAN1_RX->RIR >> 21;
    CAN1_RX->RF0R = 0x20U;
    if (g_credit != 0U) {
        g_credit--;
        can_forward(id);
    } else {
        s_dropped++;
    }
    OSIntExit();
}

static void fwd_task(void *p_arg)
{
    OS_ERR err;
    CPU_SR_ALLOC();
    (void)p_arg;
    for (;;) {
        OSTimeDly(5U, OS_OPT_TIME_DLY, &err);
        CPU_INT32U earned = credits_earned();
        CPU_CRITICAL_ENTER();
        g_credit += earned;
        CPU_CRITICAL_EXIT();
    }
}

int main(void)
{
    OS_ERR err;
    OSInit(&err);
    NVIC_SetPriority(CAN1_RX0_IRQn, 6U);
    NVIC_EnableIRQ(CAN1_RX0_IRQn);
    OSTaskCreate(&s_fwd_tcb, "fwd", fwd_task, NULL, 5U, s_fwd_stk, 25U, 256U, 0U, 0U, NULL,
                 OS_OPT_TASK_STK_CHK, &err);
    OSStart(&err);
    return 0;
}
