/* Keypad: the gpiointerrupt driver calls on_key from GPIO_EVEN_IRQHandler; main handles the
 * pending key presses one by one (EFM32PG12, emlib). */
#include "efm32pg12_emlib.h"

static volatile uint32_t g_keys_pending;
static volatile uint32_t g_last_key_pin;

static void on_key(uint8_t intNo)
{
    g_last_key_pin = intNo;
    g_keys_pending++;
}

extern void beep(void);
extern void menu_step(uint32_t pin);

int main(void)
{
    CHIP_Init();
    GPIOINT_Init();
    GPIO_PinModeSet(gpioPortD, 2U, gpioModeInputPull, 1U);
    GPIO_PinModeSet(gpioPortD, 4U, gpioModeInputPull, 1U);
    GPIOINT_CallbackRegister(2U, on_key);
    GPIOINT_CallbackRegister(4U, on_key);
    GPIO_ExtIntConfig(gpioPortD, 2U, 2U, false, true, true);
    GPIO_ExtIntConfig(gpioPortD, 4U, 4U, false, true, true);
    for (;;) {
        if (g_keys_pending != 0U) {
            g_keys_pending--;
            beep();
            menu_step(g_last_key_pin);
        } else {
            EMU_EnterEM1();
        }
    }
}
