/* Demo: a PWM-dimmed LED on TIM3 channel 1 and a 1 kHz tick on TIM2's update interrupt. */
#include "bk_hal.h"

static TIM_HandleTypeDef htim2;
static TIM_HandleTypeDef htim3;
static volatile uint32_t tick_count;

HAL_StatusTypeDef tick_timer_init(void) {
  __HAL_RCC_TIM2_CLK_ENABLE();
  htim2.Instance = TIM2;
  htim2.Init.Prescaler = 71U;
  htim2.Init.CounterMode = TIM_COUNTERMODE_UP;
  htim2.Init.Period = 999U;
  htim2.Init.ClockDivision = TIM_CLOCKDIVISION_DIV1;
  htim2.Init.RepetitionCounter = 0U;
  if (HAL_TIM_Base_Init(&htim2) != HAL_OK) {
    return HAL_ERROR;
  }
  NVIC_SetPriority(TIM2_IRQn, 3U);
  NVIC_EnableIRQ(TIM2_IRQn);
  return HAL_TIM_Base_Start_IT(&htim2);
}

HAL_StatusTypeDef pwm_init(uint32_t period) {
  TIM_OC_InitTypeDef oc = {0};
  GPIO_InitTypeDef pin = {0};

  __HAL_RCC_TIM3_CLK_ENABLE();
  __HAL_RCC_GPIOB_CLK_ENABLE();
  pin.Pin = GPIO_PIN_4;
  pin.Mode = GPIO_MODE_AF_PP;
  pin.Speed = GPIO_SPEED_FREQ_MEDIUM;
  HAL_GPIO_Init(GPIOB, &pin);

  htim3.Instance = TIM3;
  htim3.Init.Prescaler = 0U;
  htim3.Init.CounterMode = TIM_COUNTERMODE_UP;
  htim3.Init.Period = period;
  if (HAL_TIM_PWM_Init(&htim3) != HAL_OK) {
    return HAL_ERROR;
  }
  oc.OCMode = TIM_OCMODE_PWM1;
  oc.Pulse = period / 2U;
  oc.OCPolarity = TIM_OCPOLARITY_HIGH;
  if (HAL_TIM_PWM_ConfigChannel(&htim3, &oc, TIM_CHANNEL_1) != HAL_OK) {
    return HAL_ERROR;
  }
  return HAL_TIM_PWM_Start(&htim3, TIM_CHANNEL_1);
}

void pwm_set_duty(uint32_t permille) {
  uint32_t arr = htim3.Instance->ARR;

  __HAL_TIM_SET_COMPARE(&htim3, TIM_CHANNEL_1, (arr * permille) / 1000U);
}

void pwm_stop(void) { (void)HAL_TIM_PWM_Stop(&htim3, TIM_CHANNEL_1); }

void TIM2_IRQHandler(void) { HAL_TIM_IRQHandler(&htim2); }

void HAL_TIM_PeriodElapsedCallback(TIM_HandleTypeDef *htim) {
  if (htim->Instance == TIM2) {
    tick_count++;
  }
}

uint32_t tick_elapsed_since(uint32_t start) { return tick_count - start; }

void tick_timer_raw_restart(void) {
  /* Restart without the HAL: clear the update flag, reset the counter, enable again. */
  TIM2->SR &= ~TIM_SR_UIF;
  TIM2->CNT = 0U;
  TIM2->DIER |= TIM_DIER_UIE;
  TIM2->CR1 |= TIM_CR1_CEN;
  (void)__HAL_TIM_GET_COUNTER(&htim2);
}
