/* Heater controller: the main loop changes the mode field in two steps; the control interrupt
 * latches a shutdown when it sees MODE_OFF. */
#include "board.h"

#define MODE_MASK 0x3U
#define MODE_OFF 0x0U
#define MODE_LOW 0x1U
#define MODE_HIGH 0x2U

static volatile uint32_t heater_ctrl = MODE_LOW;
static volatile uint32_t shutdown_latched;

void TIM2_IRQHandler(void)
{
    TIM2->SR = 0U;
    if ((heater_ctrl & MODE_MASK) == MODE_OFF) {
        shutdown_latched = 1U;
        TIM2->CCR1 = 0U;
    } else if (shutdown_latched == 0U) {
        TIM2->CCR1 = (heater_ctrl & MODE_MASK) * 400U;
    }
}

static void set_mode(uint32_t mode)
{
    heater_ctrl = heater_ctrl & ~MODE_MASK;
    heater_ctrl = heater_ctrl | mode;
}

int main(void)
{
    board_clock_init();
    NVIC_EnableIRQ(TIM2_IRQn);
    for (;;) {
        set_mode(MODE_HIGH);
        set_mode(MODE_LOW);
    }
}
