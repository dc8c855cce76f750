/* UART receive ring reached through a pointer; head and tail are plain fields. */
#include "board.h"

#define RING_SIZE 64U

struct ring {
    uint8_t data[RING_SIZE];
    uint32_t head;
    uint32_t tail;
};

static struct ring rx;

void USART1_IRQHandler(void)
{
    struct ring *rb = &rx;
    uint8_t c = (uint8_t)USART1->DR;
    rb->data[rb->head % RING_SIZE] = c;
    rb->head = rb->head + 1U;
}

static uint8_t ring_get(struct ring *rb)
{
    while (rb->head == rb->tail) {
    }
    uint8_t c = rb->data[rb->tail % RING_SIZE];
    rb->tail = rb->tail + 1U;
    return c;
}

int main(void)
{
    board_clock_init();
    USART1->CR1 = USART_CR1_UE | USART_CR1_RXNEIE;
    NVIC_EnableIRQ(USART1_IRQn);
    for (;;) {
        process_byte(ring_get(&rx));
    }
}
