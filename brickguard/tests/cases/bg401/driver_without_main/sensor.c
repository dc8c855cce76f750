#include "mini_hal.h"
I2C_HandleTypeDef hi2c2;
static uint8_t tx[4];

void HAL_I2C_MspInit(I2C_HandleTypeDef *h)
{
    GPIO_InitTypeDef pins = {0};
    (void)h;
    __HAL_RCC_GPIOB_CLK_ENABLE();
    HAL_GPIO_Init(GPIOB, &pins);
    __HAL_RCC_I2C2_CLK_ENABLE();
    HAL_NVIC_SetPriority(I2C2_ER_IRQn, 1, 0);
    HAL_NVIC_EnableIRQ(I2C2_ER_IRQn);
    HAL_NVIC_SetPriority(I2C2_EV_IRQn, 2, 0);
    HAL_NVIC_EnableIRQ(I2C2_EV_IRQn);
}

void sensor_start(void)
{
    hi2c2.Instance = I2C2;
    HAL_I2C_Init(&hi2c2);
    HAL_I2C_Master_Transmit_IT(&hi2c2, 0x30, tx, 4);
}

void I2C2_EV_IRQHandler(void)
{
    HAL_I2C_EV_IRQHandler(&hi2c2);
}

void I2C2_ER_IRQHandler(void)
{
    HAL_I2C_ER_IRQHandler(&hi2c2);
}
