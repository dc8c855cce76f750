#include "stm32f4xx_hal.h"

#define LED_PORT GPIOD
#define LED_CLK_ENABLE() __HAL_RCC_GPIOD_CLK_ENABLE()

void leds(void)
{
    GPIO_InitTypeDef g = {0};
    LED_CLK_ENABLE();
    g.Pin = GPIO_PIN_12;
    g.Mode = GPIO_MODE_OUTPUT_PP;
    HAL_GPIO_Init(LED_PORT, &g);
}

void button_late(void)
{
    GPIO_InitTypeDef g = {0};
    g.Pin = GPIO_PIN_0;
    g.Mode = GPIO_MODE_INPUT;
    HAL_GPIO_Init(GPIOA, &g);   /* expect: BG305 */
    __HAL_RCC_GPIOA_CLK_ENABLE();
}

void never(void)
{
    GPIO_InitTypeDef g = {0};
    g.Pin = GPIO_PIN_8;
    g.Mode = GPIO_MODE_OUTPUT_PP;
    HAL_GPIO_Init(GPIOE, &g);   /* expect: BG305 */
}

void gpioc_clock(void)
{
    RCC->AHB1ENR |= RCC_AHB1ENR_GPIOCEN;
}

void register_enabled_elsewhere(void)
{
    GPIO_InitTypeDef g = {0};
    g.Pin = GPIO_PIN_9;
    g.Mode = GPIO_MODE_OUTPUT_PP;
    HAL_GPIO_Init(GPIOC, &g);   /* enabled in gpioc_clock: the order across functions is not followed */
}
