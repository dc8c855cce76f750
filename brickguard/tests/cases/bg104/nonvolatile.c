/* Objects shared with an interrupt handler without volatile. */
#include "cmsis_stub.h"

uint8_t data_ready;
uint8_t rx_count;                    /* only accessed inside critical sections by the task */
volatile uint8_t good_flag;
static const uint8_t table[4] = {1, 2, 3, 4};
uint8_t isr_only;

void USART2_IRQHandler(void)
{
    static uint8_t calls;            /* function-static, used only here */
    calls++;
    data_ready = 1;
    rx_count = (uint8_t)(rx_count + table[calls & 3u]);
    good_flag = 1;
    isr_only = calls;
}

int main(void)
{
    process(0, 0);                   /* a call brickguard cannot see into: it may enable interrupts */
    uint8_t n;
    while (!data_ready) {            /* one word: BG101 stays quiet; BG104 at the spinning read */ /* expect: BG104 */
    }
    while (!good_flag) {
    }
    __disable_irq();
    n = rx_count;
    rx_count = 0;
    __enable_irq();
    return n + table[0];
}
