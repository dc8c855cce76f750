/* A file-scope scratch variable used by both the main loop and the ADC handler. */
#include "board.h"

static volatile int32_t scratch;
static volatile int32_t filtered;
static volatile int32_t calibrated;
static int32_t offset = 12;

void ADC_IRQHandler(void)
{
    scratch = (int32_t)ADC1->DR;
    filtered = (filtered * 3 + scratch) / 4;
}

int main(void)
{
    board_clock_init();
    NVIC_EnableIRQ(ADC_IRQn);
    for (;;) {
        scratch = filtered * 2;
        calibrated = scratch - offset;
        process_byte((uint8_t)calibrated);
    }
}
