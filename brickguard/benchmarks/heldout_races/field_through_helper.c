/* Receive queue passed by pointer into a helper that consumes bytes. */
#include "board.h"

struct byte_queue {
    volatile uint8_t buf[64];
    volatile uint32_t wr;
    volatile uint32_t count;
};

static struct byte_queue rxq;

void USART2_IRQHandler(void)
{
    rxq.buf[rxq.wr] = (uint8_t)USART2->DR;
    rxq.wr = (rxq.wr + 1U) % 64U;
    rxq.count++;
}

static void queue_consume(struct byte_queue *q, uint32_t rd, uint32_t n)
{
    for (uint32_t i = 0U; i < n; i++) {
        process_byte(q->buf[(rd + i) % 64U]);
    }
    q->count -= n;
}

int main(void)
{
    uint32_t rd = 0U;

    board_clock_init();
    NVIC_EnableIRQ(USART2_IRQn);
    for (;;) {
        uint32_t n = rxq.count;
        if (n > 0U) {
            queue_consume(&rxq, rd, n);
            rd = (rd + n) % 64U;
        }
    }
}
