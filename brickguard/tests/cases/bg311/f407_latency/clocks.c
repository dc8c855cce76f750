#include "stm32f4xx_hal.h"

static void system_clock(uint32_t latency_of_a_variable)
{
    RCC_OscInitTypeDef o = {0};
    RCC_ClkInitTypeDef c = {0};
    o.OscillatorType = RCC_OSCILLATORTYPE_HSE;
    o.HSEState = RCC_HSE_ON;
    o.PLL.PLLState = RCC_PLL_ON;
    o.PLL.PLLSource = RCC_PLLSOURCE_HSE;
    o.PLL.PLLM = 8;
    o.PLL.PLLN = 336;
    o.PLL.PLLP = RCC_PLLP_DIV2;
    o.PLL.PLLQ = 7;
    HAL_RCC_OscConfig(&o);
    c.ClockType = RCC_CLOCKTYPE_SYSCLK | RCC_CLOCKTYPE_HCLK | RCC_CLOCKTYPE_PCLK1 | RCC_CLOCKTYPE_PCLK2;
    c.SYSCLKSource = RCC_SYSCLKSOURCE_PLLCLK;
    c.AHBCLKDivider = RCC_SYSCLK_DIV1;
    c.APB1CLKDivider = RCC_HCLK_DIV4;
    c.APB2CLKDivider = RCC_HCLK_DIV2;
    HAL_RCC_ClockConfig(&c, FLASH_LATENCY_4);   /* expect: BG311 */
    HAL_RCC_ClockConfig(&c, FLASH_LATENCY_5);  /* 168 MHz at 3.3 V: 5 wait states */
    HAL_RCC_ClockConfig(&c, latency_of_a_variable);  /* not a constant: not checked */
    c.AHBCLKDivider = RCC_SYSCLK_DIV2;     /* 84 MHz: 2 wait states are enough */
    HAL_RCC_ClockConfig(&c, FLASH_LATENCY_2);
}

void start(void)
{
    system_clock(FLASH_LATENCY_5);
}
