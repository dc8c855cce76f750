#include "main.h"

void HAL_I2C_MspInit(I2C_HandleTypeDef *hi2c)
{
    GPIO_InitTypeDef pins = {0};
    (void)hi2c;
    __HAL_RCC_GPIOB_CLK_ENABLE();
    pins.Pin = 0xC0u;
    pins.Mode = 0x12u;
    pins.Alternate = 4u;
    HAL_GPIO_Init(GPIOB, &pins);
    I2Cx_CLK_ENABLE();
    HAL_NVIC_SetPriority(I2Cx_ER_IRQn, 1, 0);
    HAL_NVIC_EnableIRQ(I2Cx_ER_IRQn);
    HAL_NVIC_SetPriority(I2Cx_EV_IRQn, 2, 0);
    HAL_NVIC_EnableIRQ(I2Cx_EV_IRQn);
}
