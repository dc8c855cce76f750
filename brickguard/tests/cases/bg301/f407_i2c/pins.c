#include "stm32f4xx_hal.h"

#define SCL_PORT GPIOB
#define SCL_AF GPIO_AF4_I2C1

void i2c1_pins(void)
{
    GPIO_InitTypeDef g = {0};
    __HAL_RCC_GPIOB_CLK_ENABLE();
    g.Pin = GPIO_PIN_6 | GPIO_PIN_9;       /* PB6 SCL, PB9 SDA: AF4 on an F407 */
    g.Mode = GPIO_MODE_AF_OD;
    g.Pull = GPIO_PULLUP;
    g.Alternate = SCL_AF;
    HAL_GPIO_Init(SCL_PORT, &g);
}

void spi1_on_i2c_pins(void)
{
    GPIO_InitTypeDef g = {0};
    __HAL_RCC_GPIOB_CLK_ENABLE();
    g.Pin = GPIO_PIN_7;
    g.Mode = GPIO_MODE_AF_PP;
    g.Alternate = GPIO_AF5_SPI1;           /* PB7 has no AF5 */
    HAL_GPIO_Init(GPIOB, &g);   /* expect: BG301 */
}

void usart2_other_chip(void)
{
    GPIO_InitTypeDef g = {0};
    __HAL_RCC_GPIOA_CLK_ENABLE();
    g.Pin = GPIO_PIN_2;                    /* PA2 is USART2_TX at AF7 */
    g.Mode = GPIO_MODE_AF_PP;
    g.Alternate = 8;                       /* AF8 is USART2 on no F407 pin: another part's */
    HAL_GPIO_Init(GPIOA, &g);   /* expect: BG301 */
    g.Pin = GPIO_PIN_3;
    g.Alternate = GPIO_AF7_USART2;         /* right */
    HAL_GPIO_Init(GPIOA, &g);
}

void wrong_peripheral_same_number(void)
{
    GPIO_InitTypeDef g = {0};
    __HAL_RCC_GPIOA_CLK_ENABLE();
    g.Pin = GPIO_PIN_8;                    /* AF4 on PA8 is I2C3_SCL, not I2C1 */
    g.Mode = GPIO_MODE_AF_OD;
    g.Alternate = GPIO_AF4_I2C1;
    HAL_GPIO_Init(GPIOA, &g);   /* expect: BG301 */
}

void output_ignores_alternate(void)
{
    GPIO_InitTypeDef g = {0};
    __HAL_RCC_GPIOD_CLK_ENABLE();
    g.Pin = GPIO_PIN_12;
    g.Mode = GPIO_MODE_OUTPUT_PP;
    g.Alternate = GPIO_AF5_SPI1;           /* not an AF mode: the HAL does not use it */
    HAL_GPIO_Init(GPIOD, &g);
}

void branch_unknown(int fast)
{
    GPIO_InitTypeDef g = {0};
    __HAL_RCC_GPIOC_CLK_ENABLE();
    g.Pin = GPIO_PIN_10;
    g.Mode = GPIO_MODE_AF_PP;
    if (fast)
        g.Alternate = GPIO_AF6_SPI3;
    else
        g.Alternate = GPIO_AF1_TIM1;       /* which one is not known here: not checked */
    HAL_GPIO_Init(GPIOC, &g);
}

void register_path(void)
{
    RCC->AHB1ENR |= RCC_AHB1ENR_GPIOCEN;
    (void)RCC->AHB1ENR;
    GPIOC->AFR[1] |= (8U << 8);   /* PC10 AF8 (UART4_TX): right */
    GPIOC->AFR[1] |= (3U << 12);  /* expect: BG301 */
}
