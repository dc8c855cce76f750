/* Read, then clear what was read with the handler's own line masked: the clear loads the word
   again, so a bit the handler set in between survives. Masking another line does not help. */
#include "cmsis_stub.h"

typedef enum { TIMER0_IRQn = 1, UART0_IRQn = 5 } IRQn_Type;
void NVIC_EnableIRQ(IRQn_Type irq);
void NVIC_DisableIRQ(IRQn_Type irq);
void run_jobs(uint32_t due);

volatile uint32_t timer_due, uart_due;

void TIMER0_IRQHandler(void)
{
    timer_due |= 0x3u;
}

void UART0_IRQHandler(void)
{
    uart_due |= 0x10u;
}

int main(void)
{
    NVIC_EnableIRQ(TIMER0_IRQn);
    NVIC_EnableIRQ(UART0_IRQn);
    for (;;) {
        uint32_t t = timer_due;
        uint32_t u = uart_due;
        run_jobs(t | u);
        NVIC_DisableIRQ(TIMER0_IRQn);
        timer_due &= ~t;         /* TIMER0 is masked: the clear keeps what it set since */
        uart_due &= ~u;          /* expect: BG102 */
        NVIC_EnableIRQ(TIMER0_IRQn);
    }
}
