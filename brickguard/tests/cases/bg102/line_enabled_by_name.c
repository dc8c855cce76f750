/* A line the program enables by name is off until that call, even after a call to code brickguard
   cannot see (board_init may enable anything else): the writes before NVIC_EnableIRQ(USART1_IRQn)
   do not race USART1's handler. TIM2's line is enabled by no call the program makes by name:
   the unseen code may have enabled it. */
#include "cmsis_stub.h"

typedef enum { TIM2_IRQn = 28, USART1_IRQn = 37 } IRQn_Type;
void NVIC_EnableIRQ(IRQn_Type irq);
void board_init(void);

struct uart_state { uint32_t flags; uint32_t rx_bytes; };
static struct uart_state uart;
static volatile uint32_t ticks;

void USART1_IRQHandler(void)
{
    uart.rx_bytes++;
    uart.flags |= 1u;
}

void TIM2_IRQHandler(void)
{
    ticks++;
}

static void uart_init(void)
{
    uart.flags |= 0x100u;            /* USART1's line is still off */
    uart.rx_bytes = 0u;
    NVIC_EnableIRQ(USART1_IRQn);
}

int main(void)
{
    board_init();
    ticks--;                         /* expect: BG102 */
    uart_init();
    for (;;) {
    }
}
