#include "stm32f4xx_hal.h"   /* STM32F407xx's header: it defines UART4, TIM8, DAC... */

#define COM_UART UART4
#define COM_CLK_ENABLE() __HAL_RCC_UART4_CLK_ENABLE()

typedef struct { void *Instance; } handle_t;
handle_t com;

void com_init(void)
{
    COM_CLK_ENABLE();   /* expect: BG304 */
    com.Instance = COM_UART;   /* expect: BG304 */
    __HAL_RCC_USART6_CLK_ENABLE();         /* an F401 has USART6 */
}

void spi_on_f401(void)
{
    GPIO_InitTypeDef g = {0};
    __HAL_RCC_GPIOB_CLK_ENABLE();
    g.Pin = GPIO_PIN_10;
    g.Mode = GPIO_MODE_AF_PP;
    g.Alternate = GPIO_AF5_SPI2;           /* SPI2_SCK: AF5 on PB10 of an F401 too */
    HAL_GPIO_Init(GPIOB, &g);
    com.Instance = SPI2;
    com.Instance = (void *)0x40013400u;    /* an address, not a name: not read */
}

void timer8(void)
{
    __HAL_RCC_TIM8_CLK_ENABLE();   /* expect: BG304 */
}
