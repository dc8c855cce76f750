/* Two-key menu on an EFM32GG11 (Gecko SDK): KEY_UP on PB4 and KEY_DOWN on PB5 share one GPIOINT
 * callback that records the key in s_key_events. main takes and clears the events in an NVIC mask
 * section (only the GPIO line is masked, the display DMA keeps running). */
#include "em_gecko.h"

#define KEY_UP_PIN 4U
#define KEY_DOWN_PIN 5U

static volatile uint32_t s_key_events;
static volatile uint32_t s_key_count;
static int32_t s_menu_pos;

static void key_cb(uint8_t intNo)
{
    s_key_events |= 1UL << intNo;
    s_key_count++;
}

static uint32_t take_events(void)
{
    uint32_t ev;
    CORE_DECLARE_NVIC_STATE;
    CORE_DECLARE_NVIC_MASK(mask);
    CORE_NvicMaskSetIRQ(GPIO_EVEN_IRQn, &mask);
    CORE_ENTER_NVIC(&mask);
    ev = s_key_events;
    s_key_events = 0U;
    CORE_EXIT_NVIC();
    return ev;
}

int main(void)
{
    CHIP_Init();
    GPIO_PinModeSet(gpioPortB, KEY_UP_PIN, gpioModeInputPull, 1U);
    GPIO_PinModeSet(gpioPortB, KEY_DOWN_PIN, gpioModeInputPull, 1U);
    GPIOINT_Init();
    GPIOINT_CallbackRegister(KEY_UP_PIN, key_cb);
    GPIOINT_CallbackRegister(KEY_DOWN_PIN, key_cb);
    GPIO_ExtIntConfig(gpioPortB, KEY_UP_PIN, KEY_UP_PIN, false, true, true);
    GPIO_ExtIntConfig(gpioPortB, KEY_DOWN_PIN, KEY_DOWN_PIN, false, true, true);

    for (;;) {
        uint32_t ev = take_events();
        if ((ev & (1UL << KEY_UP_PIN)) != 0U) {
            s_menu_pos--;
        }
        if ((ev & (1UL << KEY_DOWN_PIN)) != 0U) {
            s_menu_pos++;
        }
        app_log("menu %ld (%lu keys)\n", (long)s_menu_pos, (unsigned long)s_key_count);
        sl_sleeptimer_delay_millisecond(50U);
    }
}
