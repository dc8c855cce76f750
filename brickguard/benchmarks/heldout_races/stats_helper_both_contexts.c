/* Traffic statistics updated through one helper from the receive handler and the main loop. */
#include "board.h"

struct traffic_stats {
    volatile uint32_t bytes;
    volatile uint32_t frames;
};

static struct traffic_stats stats;

static void stats_add(struct traffic_stats *s, uint32_t n)
{
    s->bytes += n;
}

void USART1_IRQHandler(void)
{
    (void)USART1->DR;
    stats_add(&stats, 1U);
}

int main(void)
{
    board_clock_init();
    NVIC_EnableIRQ(USART1_IRQn);
    for (;;) {
        if (USART2->SR & USART_SR_RXNE) {
            (void)USART2->DR;
            stats_add(&stats, 1U);
            stats.frames = stats.frames + 1U;
        }
    }
}
