/* Command receiver: the USART1 receive callback (priority 3) queues bytes and counts them in
 * g_pending; main takes them one at a time, masking with BASEPRI while it decrements the count. */
#include "hc32_ddl.h"

#define RXQ 64U

static volatile uint8_t s_rxq[RXQ];
static volatile uint32_t s_head;         /* written by the callback */
static uint32_t s_tail;                  /* main only */
static volatile uint32_t g_pending;
static volatile uint32_t g_dropped;      /* written by the callback */

static void USART1_RxFull_IrqCallback(void)
{
    uint8_t b = (uint8_t)USART_ReadData(CM_USART1);
    if (g_pending < RXQ) {
        s_rxq[s_head] = b;
        s_head = (s_head + 1U) % RXQ;
        g_pending++;
    } else {
        g_dropped++;
    }
}

int main(void)
{
    stc_irq_signin_config_t cfg = { INT_SRC_USART1_RI, INT002_IRQn, USART1_RxFull_IrqCallback };
    board_init();
    (void)INTC_IrqSignIn(&cfg);
    NVIC_SetPriority(INT002_IRQn, DDL_IRQ_PRIO_03);
    NVIC_EnableIRQ(INT002_IRQn);
    for (;;) {
        if (g_pending != 0U) {
            uint8_t b = s_rxq[s_tail];
            s_tail = (s_tail + 1U) % RXQ;
            __set_BASEPRI(DDL_IRQ_PRIO_03 << 4U);
            g_pending--;
            __set_BASEPRI(0U);
            process_byte(b);
        }
        if (g_dropped != 0U) {
            uart2_print("dropped %lu\n", (unsigned long)g_dropped);
        }
    }
}
