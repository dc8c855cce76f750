/* Link error statistics (PSoC 6, PDL): the SCB5 UART handler counts receive FIFO overflows; the
 * protocol layer in main, which polls the bytes, counts CRC errors and sequence gaps. A gap is
 * booked as an overflow (a byte was lost). */
#include "psoc6_pdl.h"

enum { ERR_OVERFLOW = 0, ERR_CRC = 1, ERR_FRAMING = 2, ERR_KINDS = 3 };

static volatile uint32_t g_err[ERR_KINDS];

static void count_error(volatile uint32_t *ctr)
{
    *ctr += 1U;
}

static void uart_err_isr(void)
{
    uint32_t st = Cy_SCB_GetRxInterruptStatusMasked(SCB5);
    if ((st & CY_SCB_RX_INTR_OVERFLOW) != 0U) {
        g_err[ERR_OVERFLOW]++;
    }
    Cy_SCB_ClearRxInterrupt(SCB5, st);
}

static const cy_stc_sysint_t uart_irq_cfg = {scb_5_interrupt_IRQn, 5U};

extern int frame_poll(CySCB_Type *scb); /* 0 nothing, 1 frame ok, 2 CRC error, 3 sequence gap */
extern void stats_report(const volatile uint32_t *err, uint32_t kinds);

int main(void)
{
    (void)cybsp_init();
    (void)Cy_SysInt_Init(&uart_irq_cfg, uart_err_isr);
    Cy_SCB_SetRxInterruptMask(SCB5, CY_SCB_RX_INTR_OVERFLOW);
    NVIC_EnableIRQ(uart_irq_cfg.intrSrc);
    for (;;) {
        int r = frame_poll(SCB5);
        if (r == 2) {
            count_error(&g_err[ERR_CRC]);
        } else if (r == 3) {
            count_error(&g_err[ERR_OVERFLOW]);
        } else if (r == 1) {
            stats_report(g_err, ERR_KINDS);
        }
    }
}
