/* Status reporter on an STM32L431 with TencentOS tiny: the reporter task formats a status line
 * and hands it to the LPUART1 transmit interrupt through a length and a buffer; the transmit
 * interrupt sends byte by byte and sets the length to 0 when the line is out. A key press
 * (EXTI0) asks for an extra report; the task waits until the previous line is out. */
#include "tos_k.h"

#define LPUART1_TDR (*(volatile uint32_t *)0x40008028U)
#define LPUART1_CR1 (*(volatile uint32_t *)0x40008000U)
#define USART_CR1_TXEIE (1U << 7)
#define USART_ISR_TXE (1U << 7)

static char s_tx[64];
static volatile uint32_t g_tx_len;
static volatile uint32_t g_tx_pos;
static k_sem_t s_report_sem;
static k_task_t s_report_task;
static k_stack_t s_report_stack[512];
static uint32_t s_reports;

void LPUART1_IRQHandler(void)
{
    tos_knl_irq_enter();
    if ((LPUART1_ISR & USART_ISR_TXE) != 0U) {
        if (g_tx_pos < g_tx_len) {
            LPUART1_TDR = (uint8_t)s_tx[g_tx_pos++];
        } else {
            LPUART1_CR1 &= ~USART_CR1_TXEIE;
            g_tx_len = 0U;
        }
    }
    tos_knl_irq_leave();
}

void EXTI0_IRQHandler(void)
{
    tos_knl_irq_enter();
    EXTI_PR1 = 1U;
    tos_sem_post(&s_report_sem);
    tos_knl_irq_leave();
}

static uint32_t format(char *buf, uint32_t n)
{
    static const char hex[] = "0123456789abcdef";
    uint32_t i = 0U;
    buf[i++] = 'S';
    for (int shift = 28; shift >= 0 && i < n - 2U; shift -= 4) {
        buf[i++] = hex[(n ^ s_reports) >> shift & 0xFU];
    }
    buf[i++] = '\n';
    return i;
}

static void report_entry(void *arg)
{
    (void)arg;
    for (;;) {
        (void)tos_sem_pend(&s_report_sem, 1000U);
        while (g_tx_len != 0U) {
            tos_task_delay(1U); /* the previous line is still going out */
        }
        s_reports++;
        uint32_t n = format(s_tx, sizeof(s_tx));
        g_tx_pos = 0U;
        g_tx_len = n;
        if (g_tx_len != 0U) {
            LPUART1_CR1 |= USART_CR1_TXEIE;
        }
    }
}

int main(void)
{
    board_init();
    tos_knl_init();
    tos_sem_create(&s_report_sem, 0U);
    NVIC_SetPriority(LPUART1_IRQn, 6U);
    NVIC_SetPriority(EXTI0_IRQn, 7U);
    NVIC_EnableIRQ(LPUART1_IRQn);
    NVIC_EnableIRQ(EXTI0_IRQn);
    (void)tos_task_create(&s_report_task, "report", report_entry, NULL, 5, s_report_stack,
                          sizeof(s_report_stack), 0);
    tos_knl_start();
    return 0;
}
