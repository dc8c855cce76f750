/* Pan/tilt position integrated from two encoders every 2 ms by a repeating timer (its callback
 * runs in the alarm pool's timer interrupt); main copies the position for the display (RP2040). */
#include "pico_sdk.h"

struct position {
    int32_t pan;
    int32_t tilt;
};

static volatile struct position g_pos;
static repeating_timer_t s_timer;

extern int32_t encoder_delta_pan(void);
extern int32_t encoder_delta_tilt(void);
extern void display_position(int32_t pan, int32_t tilt);

static bool integrate_cb(repeating_timer_t *rt)
{
    (void)rt;
    g_pos.pan += encoder_delta_pan();
    g_pos.tilt += encoder_delta_tilt();
    return true;
}

int main(void)
{
    stdio_init_all();
    add_repeating_timer_ms(-2, integrate_cb, NULL, &s_timer);
    for (;;) {
        struct position p;
        uint32_t irq_state = save_and_disable_interrupts();
        p = g_pos;
        restore_interrupts(irq_state);
        display_position(p.pan, p.tilt);
        sleep_ms(50u);
    }
}
