#include "mini_hal.h"
I2C_HandleTypeDef hi2c;
static uint8_t rx[4];

int main(void)
{
    HAL_Init();
    hi2c.Instance = I2C1;
    HAL_I2C_Init(&hi2c); /* expect: BG404 */
    HAL_I2C_Slave_Receive_IT(&hi2c, rx, 4);
    for (;;) {
    }
}

void HAL_I2C_MspInit(I2C_HandleTypeDef *h)
{
    GPIO_InitTypeDef pins = {0};
    (void)h;
    __HAL_RCC_GPIOB_CLK_ENABLE();
    HAL_GPIO_Init(GPIOB, &pins);
    HAL_NVIC_SetPriority(I2C1_ER_IRQn, 1, 0);
    HAL_NVIC_EnableIRQ(I2C1_ER_IRQn);
    HAL_NVIC_SetPriority(I2C1_EV_IRQn, 2, 0);
    HAL_NVIC_EnableIRQ(I2C1_EV_IRQn);
}

void I2C1_EV_IRQHandler(void)
{
    HAL_I2C_EV_IRQHandler(&hi2c);
}

void I2C1_ER_IRQHandler(void)
{
    HAL_I2C_ER_IRQHandler(&hi2c);
}
