/* Demo: an LED on PA5 blinks; a button on PC13 raises an EXTI interrupt that changes the rate. */
#include "bk_hal.h"

static volatile uint32_t blink_period_ms = 500U;

static void clock_init(void) {
  RCC_OscInitTypeDef osc = {0};
  RCC_ClkInitTypeDef clk = {0};

  osc.OscillatorType = RCC_OSCILLATORTYPE_HSE;
  osc.HSEState = RCC_HSE_ON;
  osc.PLLMul = RCC_PLL_MUL9;
  if (HAL_RCC_OscConfig(&osc) != HAL_OK) {
    for (;;) {
    }
  }
  clk.SYSCLKSource = RCC_SYSCLKSOURCE_PLL;
  clk.AHBCLKDivider = RCC_SYSCLK_DIV1;
  clk.APB1CLKDivider = RCC_HCLK_DIV2;
  clk.APB2CLKDivider = RCC_SYSCLK_DIV1;
  (void)HAL_RCC_ClockConfig(&clk, 2U);
}

static void leds_init(void) {
  GPIO_InitTypeDef init = {0};

  __HAL_RCC_GPIOA_CLK_ENABLE();
  __HAL_RCC_GPIOC_CLK_ENABLE();

  init.Pin = GPIO_PIN_5;
  init.Mode = GPIO_MODE_OUTPUT_PP;
  init.Pull = GPIO_NOPULL;
  init.Speed = GPIO_SPEED_FREQ_LOW;
  HAL_GPIO_Init(GPIOA, &init);
  HAL_GPIO_WritePin(GPIOA, GPIO_PIN_5, GPIO_PIN_RESET);

  init.Pin = GPIO_PIN_13;
  init.Mode = GPIO_MODE_IT_FALLING;
  init.Pull = GPIO_PULLUP;
  HAL_GPIO_Init(GPIOC, &init);

  NVIC_SetPriority(EXTI15_10_IRQn, 5U);
  NVIC_EnableIRQ(EXTI15_10_IRQn);
}

void EXTI15_10_IRQHandler(void) { HAL_GPIO_EXTI_IRQHandler(GPIO_PIN_13); }

void HAL_GPIO_EXTI_Callback(uint16_t GPIO_Pin) {
  if (GPIO_Pin == GPIO_PIN_13) {
    blink_period_ms = (blink_period_ms == 500U) ? 100U : 500U;
  }
}

static void fast_toggle_registers(void) {
  /* Direct register access for a timing-critical strobe: BSRR sets and resets atomically. */
  GPIOA->BSRR = GPIO_PIN_5;
  GPIOA->BSRR = (uint32_t)GPIO_PIN_5 << 16U;
  if ((GPIOC->IDR & GPIO_PIN_13) == 0U) {
    GPIOA->ODR ^= GPIO_PIN_5;
  }
  GPIOA->MODER |= (1UL << (5U * 2U));
}

int main(void) {
  (void)HAL_Init();
  clock_init();
  leds_init();
  fast_toggle_registers();
  for (;;) {
    HAL_GPIO_TogglePin(GPIOA, GPIO_PIN_5);
    HAL_Delay(blink_period_ms);
    if (HAL_GPIO_ReadPin(GPIOC, GPIO_PIN_13) == GPIO_PIN_RESET) {
      HAL_GPIO_WritePin(GPIOA, GPIO_PIN_5, GPIO_PIN_SET);
    }
  }
}
