/* Slot table: the handler marks the current slot done; the main loop arms slot 2. */
#include "board.h"

#define SLOT_DONE 0x1U
#define SLOT_ARMED 0x2U

static volatile uint32_t slot_state[4];
static volatile uint32_t cur_slot;

void TIM2_IRQHandler(void)
{
    TIM2->SR = 0U;
    slot_state[cur_slot] |= SLOT_DONE;
    cur_slot = (cur_slot + 1U) & 3U;
}

int main(void)
{
    board_clock_init();
    NVIC_EnableIRQ(TIM2_IRQn);
    for (;;) {
        if ((slot_state[2] & SLOT_DONE) != 0U) {
            led_toggle();
        }
        slot_state[2] |= SLOT_ARMED;
    }
}
