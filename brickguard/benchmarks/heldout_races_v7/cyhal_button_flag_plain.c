/* Lamp dimmer on a PSoC 62 (CM4) with the ModusToolbox HAL: each press of the user button steps
 * the LED through three brightness levels. The GPIO callback (run in the port's interrupt) raises
 * s_button_event; main waits for it in a tight loop. */
#include "cyhal.h"

static bool s_button_event;
static volatile uint32_t s_presses;
static cyhal_pwm_t s_pwm;
static const float k_levels[3] = { 5.0f, 40.0f, 100.0f };

static void button_cb(void *callback_arg, cyhal_gpio_event_t event)
{
    (void)callback_arg;
    if (event == CYHAL_GPIO_IRQ_FALL) {
        s_presses++;
        s_button_event = true;
    }
}

int main(void)
{
    uint32_t level = 0U;
    (void)cybsp_init();
    __enable_irq();
    (void)cyhal_pwm_init(&s_pwm, CYBSP_USER_LED, NULL);
    (void)cyhal_pwm_set_duty_cycle(&s_pwm, k_levels[0], 1000U);
    (void)cyhal_pwm_start(&s_pwm);
    (void)cyhal_gpio_init(CYBSP_USER_BTN, CYHAL_GPIO_DIR_INPUT, CYHAL_GPIO_DRIVE_PULLUP, true);
    cyhal_gpio_register_callback(CYBSP_USER_BTN, button_cb, NULL);
    cyhal_gpio_enable_event(CYBSP_USER_BTN, CYHAL_GPIO_IRQ_FALL, 7U, true);

    for (;;) {
        while (!s_button_event) {
        }
        s_button_event = false;
        level = (level + 1U) % 3U;
        (void)cyhal_pwm_set_duty_cycle(&s_pwm, k_levels[level], 1000U);
        printf("press %lu level %lu\r\n", (unsigned long)s_presses, (unsigned long)level);
        cyhal_system_delay_ms(30U);
    }
}
