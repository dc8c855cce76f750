#include "stm32f4xx_hal.h"

/* Designated initialisers: the fields the HAL reads are constants all the same. */
static void system_clock(uint32_t latency_of_a_variable)
{
    RCC_OscInitTypeDef o = {
        .OscillatorType = RCC_OSCILLATORTYPE_HSE,
        .HSEState = RCC_HSE_ON,
        .PLL = { .PLLState = RCC_PLL_ON, .PLLSource = RCC_PLLSOURCE_HSE,
                 .PLLM = 8, .PLLN = 336, .PLLP = RCC_PLLP_DIV2, .PLLQ = 7 },
    };
    RCC_ClkInitTypeDef c = {
        .ClockType = RCC_CLOCKTYPE_SYSCLK | RCC_CLOCKTYPE_HCLK | RCC_CLOCKTYPE_PCLK1
                     | RCC_CLOCKTYPE_PCLK2,
        .SYSCLKSource = RCC_SYSCLKSOURCE_PLLCLK,
        .AHBCLKDivider = RCC_SYSCLK_DIV1,
        .APB1CLKDivider = RCC_HCLK_DIV4,
        .APB2CLKDivider = RCC_HCLK_DIV2,
    };
    HAL_RCC_OscConfig(&o);
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
