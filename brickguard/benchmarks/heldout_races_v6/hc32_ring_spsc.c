/* Debug console input ring: the USART1 receive callback (priority 2) produces, main consumes.
 * Single producer, single consumer: each index has one writer, no shared count. */
#include "hc32_ddl.h"

#define RING 32U

static volatile uint8_t s_ring[RING];
static volatile uint32_t s_wr;           /* written by the callback only */
static volatile uint32_t s_rd;           /* written by main only */
static volatile uint32_t s_overruns;

static void USART1_RxFull_IrqCallback(void)
{
    uint8_t b = (uint8_t)USART_ReadData(CM_USART1);
    uint32_t next = (s_wr + 1U) % RING;
    if (next != s_rd) {
        s_ring[s_wr] = b;
        s_wr = next;
    } else {
        s_overruns++;
    }
}

static int ring_get(uint8_t *out)
{
    if (s_rd == s_wr) {
        return 0;
    }
    *out = s_ring[s_rd];
    s_rd = (s_rd + 1U) % RING;
    return 1;
}

int main(void)
{
    stc_irq_signin_config_t cfg = { INT_SRC_USART1_RI, INT002_IRQn, USART1_RxFull_IrqCallback };
    uint8_t b;
    board_init();
    (void)INTC_IrqSignIn(&cfg);
    NVIC_SetPriority(INT002_IRQn, DDL_IRQ_PRIO_02);
    NVIC_EnableIRQ(INT002_IRQn);
    for (;;) {
        if (ring_get(&b) != 0) {
            process_byte(b);
        }
        if (s_overruns != 0U) {
            uart2_print("overruns %lu\n", (unsigned long)s_overruns);
        }
    }
}
