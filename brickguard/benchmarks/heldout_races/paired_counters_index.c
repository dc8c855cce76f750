/* Per-channel counter pairs: the handler counts errors in the odd slot of its channel, the main
 * loop counts polls in the even slot. */
#include "board.h"

#define NCH 4U

static volatile uint32_t count[2U * NCH];

void ADC_IRQHandler(void)
{
    uint32_t id = ADC1->SR & 3U;
    if ((ADC1->SR & 0x20U) != 0U) {
        count[2U * id + 1U]++;
    }
}

int main(void)
{
    board_clock_init();
    NVIC_EnableIRQ(ADC_IRQn);
    for (;;) {
        for (uint32_t id = 0U; id < NCH; id++) {
            count[2U * id]++;
        }
    }
}
