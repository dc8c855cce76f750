#ifndef I2C_SLAVE_H
#define I2C_SLAVE_H

#include "hal_i2c.h"

#define I2C_SLAVE_ADDRESS 0x42U
#define RX_BUFFER_SIZE 64U

extern I2C_HandleTypeDef hi2c1;
extern volatile uint8_t rx_buffer[RX_BUFFER_SIZE];
extern volatile uint8_t rx_index;
extern volatile uint8_t rx_complete;

void i2c_slave_init(void);

#endif /* I2C_SLAVE_H */
