/* Channel selected by the SPI command interrupt; 0xFF means "no channel". */
#include "board.h"

#define NUM_CH 8U
#define NO_CH 0xFFU

static volatile uint8_t active_ch = NO_CH;
static uint16_t gain[NUM_CH];

void SPI1_IRQHandler(void)
{
    uint8_t cmd = (uint8_t)periph_read(0x4001300CU);
    if (cmd < NUM_CH) {
        active_ch = cmd;
    } else {
        active_ch = NO_CH;
    }
}

int main(void)
{
    board_clock_init();
    NVIC_EnableIRQ(SPI1_IRQn);
    for (;;) {
        if (active_ch < NUM_CH) {
            gain[active_ch] = (uint16_t)(gain[active_ch] + 1U);
        }
    }
}
