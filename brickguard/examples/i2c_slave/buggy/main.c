/* Main loop: waits for a complete frame from the I2C master and executes the command. */
#include "i2c_slave.h"

static uint8_t command[RX_BUFFER_SIZE];
static uint8_t command_length;

static void execute_command(const uint8_t *cmd, uint8_t len)
{
    (void)cmd;
    (void)len;
}

int main(void)
{
    (void)HAL_Init();
    i2c_slave_init();

    for (;;) {
        if (rx_complete) {
            /* Copy the received frame out of the driver's buffer. */
            for (uint8_t i = 0; i < rx_index; i++) {
                command[i] = rx_buffer[i];
            }
            command_length = rx_index;
            rx_index = 0;
            rx_complete = 0;
            execute_command(command, command_length);
        }
    }
}
