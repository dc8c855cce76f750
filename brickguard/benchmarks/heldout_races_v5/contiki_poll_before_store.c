/* Button-to-radio node on a CC2538 with Contiki-NG. The GPIO interrupt polls the button process
 * first and stores the press time and level afterwards: that looks backwards, but process_poll()
 * from an interrupt only marks the process; the process runs later from process_run() in main,
 * after the handler has returned, so it always sees both stores (and it copies the pair with interrupts masked, so a later
 * press cannot mix into it). */
#include "contiki.h"

static volatile uint32_t g_press_time;
static volatile uint8_t g_press_level;
static uint32_t s_presses;

PROCESS(button_process, "button");

void gpio_port_a_isr(void)
{
    process_poll(&button_process);
    g_press_time = RTIMER_NOW();
    g_press_level = (uint8_t)(adc_sensor_read(1) > 1000U);
}

PROCESS_THREAD(button_process, ev, data)
{
    (void)data;
    PROCESS_BEGIN();
    while (1) {
        PROCESS_WAIT_EVENT_UNTIL(ev == PROCESS_EVENT_POLL);
        int_master_status_t st = int_master_read_and_disable();
        uint32_t t = g_press_time;
        uint8_t level = g_press_level;
        int_master_status_set(st);
        s_presses++;
        printf("press %lu at %lu level %u\n", (unsigned long)s_presses, (unsigned long)t, level);
        leds_toggle(1U);
    }
    PROCESS_END();
}

int main(void)
{
    platform_init_stage_one();
    platform_init_stage_two();
    process_start(&button_process, NULL);
    while (1) {
        while (process_run() > 0) {
        }
    }
    return 0;
}
