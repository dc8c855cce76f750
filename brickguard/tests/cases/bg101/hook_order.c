/* A hook the handler calls through, installed by the task. Installed once the interrupt can
   fire, it is still 0 in that window: the handler calls address 0. Not when it is installed
   before the enable, starts with a default, or the handler tests it first. */
#include "cmsis_stub.h"

typedef enum { USART1_IRQn = 37, USART2_IRQn = 38 } IRQn_Type;
void NVIC_EnableIRQ(IRQn_Type irq);
typedef void (*hook_t)(uint8_t byte);

static void slip_rx(uint8_t byte) { (void)byte; }
static void idle_rx(uint8_t byte) { (void)byte; }

static hook_t rx_hook, tx_hook, err_hook;
static hook_t def_hook = idle_rx;

void USART1_IRQHandler(void)
{
    rx_hook(1u);
    def_hook(2u);
    if (err_hook != 0) {
        err_hook(3u);
    }
}

void USART2_IRQHandler(void)
{
    tx_hook(4u);
}

int main(void)
{
    tx_hook = slip_rx;               /* before its interrupt is enabled */
    NVIC_EnableIRQ(USART2_IRQn);
    NVIC_EnableIRQ(USART1_IRQn);
    rx_hook = slip_rx;               /* expect: BG101 `rx_hook` */
    def_hook = slip_rx;
    err_hook = slip_rx;
    for (;;) {
    }
}
