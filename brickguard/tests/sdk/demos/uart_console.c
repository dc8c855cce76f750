/* Demo: a UART console on USART2 with interrupt reception and DMA transmission. */
#include "bk_hal.h"

static UART_HandleTypeDef huart2;
static DMA_HandleTypeDef hdma_usart2_tx;
static uint8_t rx_byte;
static uint8_t line_buf[64];
static volatile uint16_t line_len;
static volatile uint8_t line_ready;

static size_t text_length(const char *text) {
  size_t n = 0U;

  while (text[n] != '\0') {
    n++;
  }
  return n;
}

static void uart_gpio_init(void) {
  GPIO_InitTypeDef init = {0};

  __HAL_RCC_GPIOA_CLK_ENABLE();
  init.Pin = GPIO_PIN_2 | GPIO_PIN_3;
  init.Mode = GPIO_MODE_AF_PP;
  init.Pull = GPIO_PULLUP;
  init.Speed = GPIO_SPEED_FREQ_HIGH;
  init.Alternate = GPIO_AF7_USART2;
  HAL_GPIO_Init(GPIOA, &init);
}

static void uart_dma_init(void) {
  __HAL_RCC_DMA1_CLK_ENABLE();
  hdma_usart2_tx.Instance = DMA1_Channel4;
  hdma_usart2_tx.Init.Direction = DMA_MEMORY_TO_PERIPH;
  hdma_usart2_tx.Init.PeriphInc = DMA_PINC_DISABLE;
  hdma_usart2_tx.Init.MemInc = DMA_MINC_ENABLE;
  hdma_usart2_tx.Init.Mode = DMA_NORMAL;
  hdma_usart2_tx.Init.Priority = DMA_PRIORITY_LOW;
  if (HAL_DMA_Init(&hdma_usart2_tx) != HAL_OK) {
    return;
  }
  __HAL_LINKDMA(&huart2, hdmatx, hdma_usart2_tx);
  NVIC_SetPriority(DMA1_Channel4_IRQn, 6U);
  NVIC_EnableIRQ(DMA1_Channel4_IRQn);
}

HAL_StatusTypeDef console_init(uint32_t baud) {
  __HAL_RCC_USART2_CLK_ENABLE();
  uart_gpio_init();
  uart_dma_init();

  huart2.Instance = USART2;
  huart2.Init.BaudRate = baud;
  huart2.Init.WordLength = UART_WORDLENGTH_8B;
  huart2.Init.StopBits = UART_STOPBITS_1;
  huart2.Init.Parity = UART_PARITY_NONE;
  huart2.Init.Mode = UART_MODE_TX_RX;
  huart2.Init.HwFlowCtl = UART_HWCONTROL_NONE;
  if (HAL_UART_Init(&huart2) != HAL_OK) {
    return HAL_ERROR;
  }
  NVIC_SetPriority(USART2_IRQn, 5U);
  NVIC_EnableIRQ(USART2_IRQn);
  return HAL_UART_Receive_IT(&huart2, &rx_byte, 1U);
}

HAL_StatusTypeDef console_write(const char *text) {
  size_t len = text_length(text);

  if (HAL_UART_GetState(&huart2) == HAL_UART_STATE_BUSY_TX) {
    return HAL_BUSY;
  }
  return HAL_UART_Transmit_DMA(&huart2, (const uint8_t *)text, (uint16_t)len);
}

HAL_StatusTypeDef console_write_blocking(const char *text) {
  return HAL_UART_Transmit(&huart2, (const uint8_t *)text, (uint16_t)text_length(text), 100U);
}

void HAL_UART_RxCpltCallback(UART_HandleTypeDef *huart) {
  if (huart->Instance != USART2) {
    return;
  }
  if (rx_byte == '\r' || line_len == sizeof(line_buf) - 1U) {
    line_buf[line_len] = 0U;
    line_ready = 1U;
  } else {
    line_buf[line_len++] = rx_byte;
  }
  (void)HAL_UART_Receive_IT(&huart2, &rx_byte, 1U);
}

void HAL_UART_ErrorCallback(UART_HandleTypeDef *huart) {
  if ((HAL_UART_GetError(huart) & HAL_UART_ERROR_ORE) != 0U) {
    (void)HAL_UART_Abort(huart);
    (void)HAL_UART_Receive_IT(huart, &rx_byte, 1U);
  }
}

void USART2_IRQHandler(void) { HAL_UART_IRQHandler(&huart2); }

void DMA1_Channel4_IRQHandler(void) { HAL_DMA_IRQHandler(&hdma_usart2_tx); }

int console_poll_line(char *out, uint16_t size) {
  uint16_t n;

  if (line_ready == 0U) {
    return 0;
  }
  n = (line_len < size) ? line_len : (uint16_t)(size - 1U);
  for (uint16_t i = 0U; i < n; i++) {
    out[i] = (char)line_buf[i];
  }
  out[n] = '\0';
  line_len = 0U;
  line_ready = 0U;
  return (int)n;
}

void console_raw_putc(char c) {
  /* Polled fallback used from the hard-fault handler, where no interrupt may run. */
  while ((USART2->SR & USART_SR_TXE) == 0U) {
  }
  USART2->DR = (uint32_t)(uint8_t)c;
  __HAL_UART_DISABLE_IT(&huart2, UART_IT_RXNE);
}
