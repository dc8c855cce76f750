/* A receive buffer and its index, written in an interrupt, read by the main loop: a correct
   single-producer ring (each side writes its own index; every access is one atomic byte). */
#include "cmsis_stub.h"

volatile uint8_t rx_buf[32];
volatile uint8_t rx_head;
volatile uint8_t data_ready;        /* a flag: only the ISR writes it */

void USART1_IRQHandler(void)
{
    rx_buf[rx_head] = 0x55;
    rx_head = (uint8_t)((rx_head + 1u) & 31u);
    data_ready = 1;
}

int main(void)
{
    uint8_t tail = 0;
    for (;;) {
        while (!data_ready) {       /* single volatile word read of an ISR-only flag: safe */
        }
        while (tail != rx_head) {   /* single volatile word read: atomic, not reported */
            process(&tail, rx_buf[tail]);   /* one byte, written before rx_head moved on */
            tail = (uint8_t)((tail + 1u) & 31u);
        }
    }
}
