/* An assistant's UART driver: invented names, wrong counts, wrong types, and look-alikes. */
#include "bk_hal.h"

static UART_HandleTypeDef huart2;
static TIM_HandleTypeDef htim3;
static uint8_t buf[8];

static int local_helper(int x) { return x + 1; }

void driver_start(void) {
  __HAL_RCC_USART2_CLK_ENABLE();
  __HAL_RCC_USART9_CLK_ENABLE(); /* expect: BG203 */
  huart2.Instance = USART2;
  huart2.Init.BaudRate = 115200U;
  huart2.Init.BaudRatee = 9600U; /* expect: BG203 */
  GPIOA->ODR |= GPIO_PIN_5;
  GPIOA->ODRX |= GPIO_PIN_5; /* expect: BG203 */
  NVIC_EnableIRQ(USART2_IRQn);
  NVIC_EnableIRQ(USART42_IRQn); /* expect: BG203 */
  (void)HAL_UART_Init(&huart2);
  (void)HAL_UART_Transmit_DMA(&huart2, buf, 8U);
  (void)HAL_UART_TransmitDMA(&huart2, buf, 8U); /* expect: BG201 */
  (void)HAL_UART_Transmit(&huart2, buf, 8U, 100U);
  (void)HAL_UART_Transmit(&huart2, buf, 8U); /* expect: BG202 */
  HAL_Delay(1U, 2U); /* expect: BG202 */
  __HAL_UART_ENABLE_IT(&huart2, UART_IT_RXNE);
  __HAL_UART_ENABLE_IT(&huart2); /* expect: BG202 */
  (void)HAL_TIM_PWM_Start(&htim3, TIM_CHANNEL_1);
  (void)HAL_TIM_PWM_Start(&htim3, UART_MODE_TX); /* expect: BG205 */
  (void)HAL_UART_Receive(&huart2, 5, 1U, 10U); /* expect: BG205 */
  (void)local_helper(3);
}
