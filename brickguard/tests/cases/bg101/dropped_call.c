/* A call clang drops from the tree (its function and arguments are undeclared: the board's
   BSP header is missing) is unknown code: it may enable interrupts (here the button's EXTI). */
#include "cmsis_stub.h"

volatile uint8_t pressed;
volatile uint8_t mode;

void HAL_GPIO_EXTI_Callback(uint16_t pin)
{
    (void)pin;
    pressed = 1u;
    mode ^= 1u;
}

int main(void)
{
    pressed = 0u;                    /* nothing can fire yet */
    BSP_PB_Init(BUTTON_KEY, BUTTON_MODE_EXTI);   /* expect: BG000 */
    for (;;) {
        if (pressed != 0u) {
            process(0, mode);
            pressed = 0u;            /* expect: BG101 */
        }
    }
}
