/*
 * hal_i2c_soak.c - the part of the STM32 HAL I2C driver the example calls, for `brickguard soak`
 * only (the example has no vendor HAL). It behaves as the HAL's interrupt-mode slave receive
 * does: HAL_I2C_Slave_Receive_IT arms a one-byte transfer, the event interrupt reads I2C1->DR
 * while SR1.RXNE is set and, when the transfer is complete, calls HAL_I2C_SlaveRxCpltCallback.
 * HAL_I2C_Init enables I2C1_EV_IRQn in the NVIC, as HAL_I2C_MspInit does in a CubeMX project.
 */
#include "hal_i2c.h"

#define I2C1_EV_IRQn 31u
#define NVIC_ISER0 (*(volatile uint32_t *)0xE000E100UL)
#define I2C_SR1_RXNE 0x40u
#define I2C_CR2_ITEVTEN 0x200u
#define I2C_CR2_ITBUFEN 0x400u

static uint8_t *xfer_ptr;
static uint16_t xfer_left;

HAL_StatusTypeDef HAL_Init(void)
{
    return HAL_OK;
}

HAL_StatusTypeDef HAL_I2C_Init(I2C_HandleTypeDef *hi2c)
{
    hi2c->Instance->OAR1 = hi2c->Init.OwnAddress1 | hi2c->Init.AddressingMode;
    hi2c->Instance->CR1 = 1u; /* PE */
    NVIC_ISER0 = 1u << I2C1_EV_IRQn;
    hi2c->State = 0x20u; /* ready */
    return HAL_OK;
}

HAL_StatusTypeDef HAL_I2C_Slave_Receive_IT(I2C_HandleTypeDef *hi2c, uint8_t *pData, uint16_t Size)
{
    xfer_ptr = pData;
    xfer_left = Size;
    hi2c->State = 0x22u; /* busy receiving */
    hi2c->Instance->CR2 |= I2C_CR2_ITEVTEN | I2C_CR2_ITBUFEN;
    return HAL_OK;
}

void HAL_I2C_EV_IRQHandler(I2C_HandleTypeDef *hi2c)
{
    if ((hi2c->Instance->SR1 & I2C_SR1_RXNE) != 0u && xfer_left != 0u) {
        *xfer_ptr++ = (uint8_t)hi2c->Instance->DR;
        if (--xfer_left == 0u) {
            hi2c->State = 0x20u;
            HAL_I2C_SlaveRxCpltCallback(hi2c);
        }
    }
}

void HAL_I2C_ER_IRQHandler(I2C_HandleTypeDef *hi2c)
{
    (void)hi2c;
}
