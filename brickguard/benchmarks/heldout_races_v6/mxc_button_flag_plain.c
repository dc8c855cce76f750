/* Arm-on-press: main waits for a button press reported by a GPIO callback (run from
 * GPIO0_IRQHandler via MXC_GPIO_Handler), then starts a measurement. */
#include "mxc_msdk.h"

static bool s_pressed;
static volatile uint32_t s_press_count;

static void on_button(void *cbdata)
{
    (void)cbdata;
    s_press_count++;
    s_pressed = true;
}

void GPIO0_IRQHandler(void)
{
    MXC_GPIO_Handler(0U);
}

int main(void)
{
    mxc_gpio_cfg_t btn = { MXC_GPIO0, MXC_GPIO_PIN_12, 0, 1, 0 };
    MXC_GPIO_Config(&btn);
    MXC_GPIO_RegisterCallback(&btn, on_button, NULL);
    MXC_GPIO_IntConfig(&btn, MXC_GPIO_INT_FALLING);
    MXC_GPIO_EnableInt(btn.port, btn.mask);
    NVIC_EnableIRQ(GPIO0_IRQn);
    for (;;) {
        while (!s_pressed) {
        }
        s_pressed = false;
        console_print("armed (%lu presses)\n", (unsigned long)s_press_count);
        MXC_Delay(200000U);
    }
}
