/* Debug console input ring: the USART1 receive callback (priority 2) produces, main consumes.
 * The ring keeps a shared byte count beside its indices. */
#include "hc32_ddl.h"

#define RING 32U

static volatile uint8_t s_ring[RING];
static volatile uint32_t s_wr;           /* callback only */
static volatile uint32_t s_rd;           /* main only */
static volatile uint32_t s_count;

static void USART1_RxFull_IrqCallback(void)
{
    uint8_t b = (uint8_t)USART_ReadData(CM_USART1);
    if (s_count < RING) {
        s_ring[s_wr] = b;
        s_wr = (s_wr + 1U) % RING;
        s_count++;
    }
}

static int ring_get(uint8_t *out)
{
    if (s_count == 0U) {
        return 0;
    }
    *out = s_ring[s_rd];
    s_rd = (s_rd + 1U) % RING;
    s_count--;
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
    }
}
