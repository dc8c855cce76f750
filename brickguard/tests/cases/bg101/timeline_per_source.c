/* The interrupt timeline per source: a handler fires only once its own NVIC line is enabled,
   and a HAL peripheral's handler only once a transfer of its family is started in interrupt
   or DMA mode (its line alone raises nothing). */
#include "cmsis_stub.h"

typedef enum { TIM2_IRQn = 28, I2C1_EV_IRQn = 31, USART1_IRQn = 37 } IRQn_Type;
typedef struct { volatile uint32_t State; uint32_t Mode; } I2C_HandleTypeDef;
void HAL_NVIC_EnableIRQ(IRQn_Type irq);
int HAL_I2C_Master_Transmit_IT(I2C_HandleTypeDef *h, uint16_t addr, uint8_t *data, uint16_t n);
void HAL_I2C_EV_IRQHandler(I2C_HandleTypeDef *h);

I2C_HandleTypeDef hi2c;
volatile uint32_t ticks;
volatile uint32_t rx_count;

void I2C1_EV_IRQHandler(void)
{
    HAL_I2C_EV_IRQHandler(&hi2c);
    hi2c.Mode++;
}

void TIM2_IRQHandler(void)
{
    ticks++;
}

void USART1_IRQHandler(void)         /* its line is never enabled: it never runs */
{
    rx_count++;
}

int main(void)
{
    uint8_t byte = 0u;
    HAL_NVIC_EnableIRQ(I2C1_EV_IRQn);
    HAL_NVIC_EnableIRQ(TIM2_IRQn);
    ticks--;                         /* expect: BG102 */
    hi2c.Mode++;                     /* no I2C transfer started: the I2C handler cannot run */
    rx_count--;
    HAL_I2C_Master_Transmit_IT(&hi2c, 0x42u, &byte, 1u);
    hi2c.Mode++;                     /* expect: BG102 */ /* (in no loop: no BG104) */
    return 0;
}
