/* Shapes that look like races and are not. */
#include "cmsis_stub.h"

volatile uint8_t frame[16];
volatile uint32_t frame_len;
static const uint8_t crc_table[4] = {1, 2, 3, 4};
uint32_t boot_count;                 /* only ever touched by the task */
volatile uint8_t log_buf[8];         /* only ever touched by the ISR */

void TIM2_IRQHandler(void)
{
    frame[frame_len & 15u] = crc_table[1];
    frame_len = frame_len + 1u;
    log_buf[0] = 1;
}

/* Every call site of this helper is inside a critical section. */
static uint8_t peek_locked(uint32_t i)
{
    return frame[i];
}

uint8_t read_primask(uint32_t i)
{
    uint32_t saved = __get_PRIMASK();
    __disable_irq();
    uint8_t v = frame[i];            /* protected by the PRIMASK save/restore idiom */
    __set_PRIMASK(saved);
    return v;
}

uint8_t read_plain(uint32_t i)
{
    uint8_t v;
    __disable_irq();
    v = frame[i];
    v ^= peek_locked(i);
    __enable_irq();
    return (uint8_t)(v + crc_table[i & 3u]);     /* const table: never racy */
}

int main(void)
{
    uint8_t frame[4] = {0};          /* a local with the global's name: another object */
    frame[0] = 7;
    boot_count++;
    for (uint32_t i = 0; i < 4; i++) {
        frame[i] = read_primask(i) + read_plain(i);
    }
    return frame[0];
}
