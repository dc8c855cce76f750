#include "stm32f4xx_hal.h"

void i2c1_pins(void)
{
    GPIO_InitTypeDef g = {0};
    __HAL_RCC_GPIOB_CLK_ENABLE();
    g.Pin = GPIO_PIN_6 | GPIO_PIN_7;
    g.Mode = GPIO_MODE_AF_OD;
    g.Alternate = GPIO_AF4_I2C1;
    HAL_GPIO_Init(GPIOB, &g);
}

void i2c1_pins_again(void)
{
    GPIO_InitTypeDef g = {0};
    __HAL_RCC_GPIOB_CLK_ENABLE();
    g.Pin = GPIO_PIN_6;                    /* the same owner again: not a conflict */
    g.Mode = GPIO_MODE_AF_OD;
    g.Alternate = GPIO_AF4_I2C1;
    HAL_GPIO_Init(GPIOB, &g);
}

void usart1_pins(void)
{
    GPIO_InitTypeDef g = {0};
    __HAL_RCC_GPIOB_CLK_ENABLE();
    g.Pin = GPIO_PIN_6;                    /* USART1_TX is AF7 on PB6: but I2C1 has it */
    g.Mode = GPIO_MODE_AF_PP;
    g.Alternate = GPIO_AF7_USART1;
    HAL_GPIO_Init(GPIOB, &g);   /* expect: BG303 */
}

void button(void)
{
    GPIO_InitTypeDef g = {0};
    __HAL_RCC_GPIOB_CLK_ENABLE();
    g.Pin = GPIO_PIN_7;                    /* an input drives nothing: not a conflict */
    g.Mode = GPIO_MODE_INPUT;
    HAL_GPIO_Init(GPIOB, &g);
}

void led_on_sda(void)
{
    GPIO_InitTypeDef g = {0};
    __HAL_RCC_GPIOB_CLK_ENABLE();
    g.Pin = GPIO_PIN_7;                    /* a push-pull output on I2C1's SDA */
    g.Mode = GPIO_MODE_OUTPUT_PP;
    HAL_GPIO_Init(GPIOB, &g);   /* expect: BG303 */
}
