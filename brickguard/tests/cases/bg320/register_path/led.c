#include "stm32f4xx_hal.h"

void led_bare(void)
{
    RCC->AHB1ENR |= RCC_AHB1ENR_GPIODEN;
    GPIOD->MODER |= GPIO_MODER_MODER12_0;   /* expect: BG320 */
}

void led_read_back(void)
{
    RCC->AHB1ENR |= RCC_AHB1ENR_GPIODEN;
    (void)RCC->AHB1ENR;                     /* the workaround the HAL applies */
    GPIOD->MODER |= GPIO_MODER_MODER12_0;
}

void led_barrier(void)
{
    RCC->AHB1ENR |= RCC_AHB1ENR_GPIODEN;
    __DSB();
    GPIOD->MODER |= GPIO_MODER_MODER12_0;
}

void led_hal(void)
{
    __HAL_RCC_GPIOD_CLK_ENABLE();           /* the macro reads the register back */
    GPIOD->MODER |= GPIO_MODER_MODER12_0;
}

void uart_bare(void)
{
    RCC->APB2ENR |= RCC_APB2ENR_USART1EN;
    RCC->AHB1ENR |= RCC_AHB1ENR_GPIOAEN;    /* reads AHB1ENR, not APB2ENR: no read-back */
    USART1->BRR = 0x0683U;   /* expect: BG320 */
}

void backup_domain(void)
{
    PWR->CR |= PWR_CR_DBP;
    RTC->WPR = 0xCAU;   /* expect: BG320 */
}
