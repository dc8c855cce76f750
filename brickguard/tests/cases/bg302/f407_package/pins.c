#include "stm32f4xx_hal.h"

void leds(void)
{
    GPIO_InitTypeDef g = {0};
    __HAL_RCC_GPIOD_CLK_ENABLE();
    g.Pin = GPIO_PIN_12 | GPIO_PIN_15;     /* the Discovery board's LEDs: in LQFP100 */
    g.Mode = GPIO_MODE_OUTPUT_PP;
    HAL_GPIO_Init(GPIOD, &g);
}

void from_a_bigger_board(void)
{
    GPIO_InitTypeDef g = {0};
    __HAL_RCC_GPIOI_CLK_ENABLE();
    g.Pin = GPIO_PIN_0;                    /* port I is bonded out only on 144/176 pins */
    g.Mode = GPIO_MODE_OUTPUT_PP;
    HAL_GPIO_Init(GPIOI, &g);   /* expect: BG302 */
    __HAL_RCC_GPIOH_CLK_ENABLE();
    g.Pin = GPIO_PIN_1;                    /* PH1 (OSC_OUT) is there */
    g.Mode = GPIO_MODE_INPUT;
    HAL_GPIO_Init(GPIOH, &g);
    g.Pin = GPIO_PIN_2;                    /* PH2 is not */
    HAL_GPIO_Init(GPIOH, &g);   /* expect: BG302 */
}

void low_power_park_all(void)
{
    GPIO_InitTypeDef g = {0};
    __HAL_RCC_GPIOF_CLK_ENABLE();
    g.Pin = GPIO_PIN_All;                  /* every pin analog: harmless on an absent port */
    g.Mode = GPIO_MODE_ANALOG;
    HAL_GPIO_Init(GPIOF, &g);
    g.Mode = GPIO_MODE_OUTPUT_PP;          /* but driving them is not */
    HAL_GPIO_Init(GPIOF, &g);   /* expect: BG302 */
}
