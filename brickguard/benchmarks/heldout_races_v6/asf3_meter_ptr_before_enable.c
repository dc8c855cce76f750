/* Energy meter: an S0 pulse output on PB27 raises a PIO interrupt; the handler (registered with
 * pio_handler_set, run from PIOB_Handler) counts into the meter that s_meter points to. */
#include "asf3_sam3x.h"

struct meter {
    uint32_t pulses;
    uint32_t wh_per_pulse;
};

static struct meter g_house = { 0U, 1U };
static struct meter *volatile s_meter;

static void on_pulse(uint32_t id, uint32_t mask)
{
    (void)id;
    (void)mask;
    s_meter->pulses++;
}

int main(void)
{
    sysclk_init();
    board_init();
    pmc_enable_periph_clk(ID_PIOB);
    s_meter = &g_house;
    pio_handler_set(PIOB, ID_PIOB, PIO_PB27, PIO_IT_RISE_EDGE, on_pulse);
    pio_enable_interrupt(PIOB, PIO_PB27);
    NVIC_SetPriority(PIOB_IRQn, 5U);
    NVIC_EnableIRQ(PIOB_IRQn);
    for (;;) {
        uint32_t p = g_house.pulses;
        printf_uart("%lu Wh\n", (unsigned long)(p * g_house.wh_per_pulse));
    }
}
