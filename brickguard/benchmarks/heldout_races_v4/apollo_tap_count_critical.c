/* Tap detector: the accelerometer's interrupt pin runs a GPIO handler registered with the HAL,
 * which counts taps; the main loop handles them one at a time. */
#include "am_mcu_apollo.h"

#define ACCEL_INT_PIN 14U

static volatile uint32_t g_pending_taps;
static uint32_t s_handled;

static void accel_int_handler(void)
{
    g_pending_taps++;
}

void am_gpio_isr(void)
{
    uint64_t ui64Status;
    am_hal_gpio_interrupt_status_get(false, &ui64Status);
    am_hal_gpio_interrupt_clear(ui64Status);
    am_hal_gpio_interrupt_service(ui64Status);
}

int main(void)
{
    am_bsp_low_power_init();
    am_hal_gpio_interrupt_register(ACCEL_INT_PIN, accel_int_handler);
    am_hal_gpio_interrupt_clear(AM_HAL_GPIO_BIT(ACCEL_INT_PIN));
    am_hal_gpio_interrupt_enable(AM_HAL_GPIO_BIT(ACCEL_INT_PIN));
    NVIC_SetPriority(GPIO_IRQn, AM_IRQ_PRIORITY_DEFAULT);
    NVIC_EnableIRQ(GPIO_IRQn);
    for (;;) {
        if (g_pending_taps != 0U) {
            AM_CRITICAL_BEGIN
            g_pending_taps--;
            AM_CRITICAL_END
            s_handled++;
            handle_tap();
        }
        am_hal_delay_us(500U);
    }
}
