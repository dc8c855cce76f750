#include "main.h"
I2C_HandleTypeDef I2cHandle;
static uint8_t buffer[4];
static volatile int done;

int main(void)
{
    HAL_Init();
    I2cHandle.Instance = I2Cx;
    if (HAL_I2C_Init(&I2cHandle) != HAL_OK) {
        return 1;
    }
    if (HAL_I2C_Master_Transmit_IT(&I2cHandle, 0x30, buffer, 4) != HAL_OK) {
        return 1;
    }
    while (!done) {
    }
    return 0;
}

void HAL_I2C_MasterTxCpltCallback(I2C_HandleTypeDef *hi2c)
{
    (void)hi2c;
    done = 1;
}

void HAL_I2C_ErrorCallback(I2C_HandleTypeDef *hi2c)
{
    (void)hi2c;
    done = -1;
}
