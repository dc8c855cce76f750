#ifndef MAIN_H
#define MAIN_H
#include "mini_hal.h"
#define I2Cx I2C2
#define I2Cx_CLK_ENABLE() __HAL_RCC_I2C2_CLK_ENABLE()
#define I2Cx_EV_IRQn I2C2_EV_IRQn
#define I2Cx_ER_IRQn I2C2_ER_IRQn
#define I2Cx_EV_IRQHandler I2C2_EV_IRQHandler
#define I2Cx_ER_IRQHandler I2C2_ER_IRQHandler
extern I2C_HandleTypeDef I2cHandle;
#endif
