/* Alarm panel: two external-interrupt callbacks (door contact on PA14, motion sensor on PA15)
 * set event bits; main handles each event and clears its bit. */
#include "atmel_start.h"

#define EV_DOOR 0x01U
#define EV_MOTION 0x02U

static volatile uint8_t g_events;

static void door_cb(void)
{
    g_events |= EV_DOOR;
}

static void motion_cb(void)
{
    g_events |= EV_MOTION;
}

int main(void)
{
    system_init();
    ext_irq_register(PIN_PA14, door_cb);
    ext_irq_register(PIN_PA15, motion_cb);
    for (;;) {
        if ((g_events & EV_DOOR) != 0U) {
            g_events &= (uint8_t)~EV_DOOR;
            door_event();
        }
        if ((g_events & EV_MOTION) != 0U) {
            g_events &= (uint8_t)~EV_MOTION;
            motion_event();
        }
    }
}
