/*
 * I2C slave driver: receives command frames from the host controller, one byte per
 * interrupt, and hands complete frames (terminated by '\n') to the main loop.
 */
#include "i2c_slave.h"

I2C_HandleTypeDef hi2c1;
uint8_t rx_buffer[RX_BUFFER_SIZE];
uint8_t rx_index = 0;
uint8_t rx_complete = 0;
static uint8_t rx_byte;

void i2c_slave_init(void)
{
    hi2c1.Instance = I2C1;
    hi2c1.Init.ClockSpeed = 100000U;
    hi2c1.Init.OwnAddress1 = I2C_SLAVE_ADDRESS << 1;
    hi2c1.Init.AddressingMode = I2C_ADDRESSINGMODE_7BIT;
    (void)HAL_I2C_Init(&hi2c1);
    (void)HAL_I2C_Slave_Receive_IT(&hi2c1, &rx_byte, 1U);
}

/* Called by the HAL from I2C1_EV_IRQHandler each time a byte has been received. */
void HAL_I2C_SlaveRxCpltCallback(I2C_HandleTypeDef *hi2c)
{
    if (rx_index < RX_BUFFER_SIZE) {
        rx_buffer[rx_index++] = rx_byte;
    }
    if (rx_byte == '\n' || rx_index >= RX_BUFFER_SIZE) {
        rx_complete = 1U;
    }
    (void)HAL_I2C_Slave_Receive_IT(hi2c, &rx_byte, 1U);
}

void I2C1_EV_IRQHandler(void)
{
    HAL_I2C_EV_IRQHandler(&hi2c1);
}

void I2C1_ER_IRQHandler(void)
{
    HAL_I2C_ER_IRQHandler(&hi2c1);
}
