#include <stdint.h>

void HAL_NVIC_SetPriority(int irq, uint32_t prio, uint32_t sub);
enum { USART1_IRQn = 37, TIM2_IRQn = 28 };
volatile uint32_t sink;

static uint32_t crc_table_walk(void)
{
    volatile uint8_t table[256];           /* 256 bytes of stack */
    uint32_t s = 0;
    for (int i = 0; i < 256; i++) {
        table[i] = (uint8_t)i;
        s += table[i];
    }
    return s;
}

static void log_word(uint32_t w)
{
    volatile uint32_t copy[16];            /* 64 bytes */
    copy[0] = w;
    sink = copy[0];
}

void USART1_IRQHandler(void)
{
    log_word(sink);
}

void TIM2_IRQHandler(void)
{
    log_word(sink + 1);
}

int main(void)   /* expect: BG510 */
{
    HAL_NVIC_SetPriority(USART1_IRQn, 1, 0);  /* USART1 preempts TIM2: both nest on main */
    HAL_NVIC_SetPriority(TIM2_IRQn, 2, 0);
    for (;;) {
        sink = crc_table_walk();
    }
}
