#include "stm32f4xx_hal.h"

/* HSE_VALUE is 8 MHz (include_hal/stm32f4xx_hal_conf.h), as on the Discovery board. */
static void pll(uint32_t m, uint32_t n)
{
    (void)m; (void)n;
}

void discovery_168mhz(void)
{
    RCC_OscInitTypeDef o = {0};
    RCC_ClkInitTypeDef c = {0};
    __HAL_RCC_PWR_CLK_ENABLE();
    __HAL_PWR_VOLTAGESCALING_CONFIG(PWR_REGULATOR_VOLTAGE_SCALE1);
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
    c.APB1CLKDivider = RCC_HCLK_DIV4;      /* 42 MHz: the limit */
    c.APB2CLKDivider = RCC_HCLK_DIV2;      /* 84 MHz: the limit */
    HAL_RCC_ClockConfig(&c, FLASH_LATENCY_5);

    /* From a 180 MHz F429 set-up: PLLN 360 with PLLM 4 gives a 720 MHz VCO. */
    o.PLL.PLLM = 4;
    o.PLL.PLLN = 360;
    HAL_RCC_OscConfig(&o);   /* expect: BG310 */
    pll(4, 360);

    o.PLL.PLLM = 8;
    o.PLL.PLLN = 500;                      /* PLLN over 432 */
    HAL_RCC_OscConfig(&o);   /* expect: BG310 */

    o.PLL.PLLN = 336;
    HAL_RCC_OscConfig(&o);
    c.APB1CLKDivider = RCC_HCLK_DIV2;      /* PCLK1 84 MHz on a 42 MHz bus */
    HAL_RCC_ClockConfig(&c, FLASH_LATENCY_5);   /* expect: BG310 */
}

void hsi_16mhz(void)
{
    RCC_ClkInitTypeDef c = {0};
    c.ClockType = RCC_CLOCKTYPE_SYSCLK | RCC_CLOCKTYPE_HCLK;
    c.SYSCLKSource = RCC_SYSCLKSOURCE_HSI;
    c.AHBCLKDivider = RCC_SYSCLK_DIV1;
    c.APB1CLKDivider = RCC_HCLK_DIV1;
    c.APB2CLKDivider = RCC_HCLK_DIV1;
    HAL_RCC_ClockConfig(&c, FLASH_LATENCY_0);
}
