#include "stm32f4xx_hal.h"

/* No [target] mcu and no CubeMX .ioc: the pins cannot be checked, and one note says so. */
void i2c1_pins(void)
{
    GPIO_InitTypeDef g = {0};
    __HAL_RCC_GPIOB_CLK_ENABLE();
    g.Pin = GPIO_PIN_6;
    g.Mode = GPIO_MODE_AF_OD;
    g.Alternate = GPIO_AF5_SPI1;
    HAL_GPIO_Init(GPIOB, &g);   /* expect: BG300 */
    g.Pin = GPIO_PIN_7;
    HAL_GPIO_Init(GPIOB, &g);
}
