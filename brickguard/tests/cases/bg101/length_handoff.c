/* A transmit buffer handed to the interrupt through its length: the handler sends
   ``tx[pos++]`` only while ``pos < len`` (pos unsigned, so len is above 0 there) and stores
   len = 0 when the line is out; the task writes the buffer only after its wait saw len == 0
   and stores the new length after the buffer. While the task knows len == 0 the handler
   cannot be on the path that reads the buffer, so the task's writes to it are no race. Kept (a
   race): the same fill of a second buffer the handler sends while ``pos2 != len2``, which says
   nothing of len2 alone. Kept too, by the rules' policy for a wait and a later write with calls
   between (a completion the write can lose): the store of the new length after the wait saw 0,
   though here the handler's store between could only be another 0. */
#include "cmsis_stub.h"

#define TXE (1u << 7)
#define UART_SR (*(volatile uint32_t *)0x40011000u)
#define UART_DR (*(volatile uint32_t *)0x40011004u)

static char tx[32];
static char tx2[32];
static volatile uint32_t tx_len, tx_pos;
static volatile uint32_t len2, pos2;
void delay_ms(uint32_t ms);

static uint32_t fill(char *buf, uint32_t n, char c)
{
    uint32_t i = 0u;
    while (i < n - 1u) {
        buf[i++] = c;
    }
    buf[i++] = '\n';
    return i;
}

static uint32_t fill2(char *buf, uint32_t n, char c)
{
    uint32_t i = 0u;
    while (i < n - 1u) {
        buf[i++] = c;
    }
    buf[i++] = '\n';                  /* expect: BG101 */
    return i;
}

void USART1_IRQHandler(void)
{
    if ((UART_SR & TXE) != 0u) {
        if (tx_pos < tx_len) {
            UART_DR = (uint8_t)tx[tx_pos++];
        } else {
            tx_len = 0u;
        }
    }
}

void USART2_IRQHandler(void)
{
    if ((UART_SR & TXE) != 0u && pos2 != len2) {
        UART_DR = (uint8_t)tx2[pos2++];
    }
}

int main(void)
{
    __enable_irq();
    for (char c = 'a';; c++) {
        while (tx_len != 0u) {
            delay_ms(1u);
        }
        uint32_t n = fill(tx, sizeof(tx), c);
        tx_pos = 0u;
        tx_len = n;                    /* expect: BG101 */
        while (pos2 != len2) {
            delay_ms(1u);
        }
        n = fill2(tx2, sizeof(tx2), c);
        pos2 = 0u;                     /* expect: BG101 */
        len2 = n;
    }
}
