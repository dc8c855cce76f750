/* Demo: a serial NOR flash on SPI1 with a software chip select on PA4. */
#include "bk_hal.h"

#define FLASH_CMD_READ_ID 0x9FU
#define FLASH_CMD_READ 0x03U
#define FLASH_CMD_WRITE_ENABLE 0x06U
#define FLASH_CMD_PAGE_PROGRAM 0x02U
#define FLASH_CMD_READ_STATUS 0x05U
#define FLASH_STATUS_BUSY 0x01U
#define FLASH_PAGE_SIZE 256U

static SPI_HandleTypeDef hspi1;

static void flash_select(void) { HAL_GPIO_WritePin(GPIOA, GPIO_PIN_4, GPIO_PIN_RESET); }
static void flash_deselect(void) { HAL_GPIO_WritePin(GPIOA, GPIO_PIN_4, GPIO_PIN_SET); }

HAL_StatusTypeDef flash_init(void) {
  GPIO_InitTypeDef init = {0};

  __HAL_RCC_GPIOA_CLK_ENABLE();
  __HAL_RCC_SPI1_CLK_ENABLE();

  init.Pin = GPIO_PIN_5 | GPIO_PIN_6 | GPIO_PIN_7;
  init.Mode = GPIO_MODE_AF_PP;
  init.Speed = GPIO_SPEED_FREQ_HIGH;
  init.Alternate = GPIO_AF5_SPI1;
  HAL_GPIO_Init(GPIOA, &init);

  init.Pin = GPIO_PIN_4;
  init.Mode = GPIO_MODE_OUTPUT_PP;
  init.Pull = GPIO_NOPULL;
  HAL_GPIO_Init(GPIOA, &init);
  flash_deselect();

  hspi1.Instance = SPI1;
  hspi1.Init.Mode = SPI_MODE_MASTER;
  hspi1.Init.Direction = SPI_DIRECTION_2LINES;
  hspi1.Init.DataSize = SPI_DATASIZE_8BIT;
  hspi1.Init.CLKPolarity = SPI_POLARITY_LOW;
  hspi1.Init.CLKPhase = SPI_PHASE_1EDGE;
  hspi1.Init.BaudRatePrescaler = SPI_BAUDRATEPRESCALER_8;
  return HAL_SPI_Init(&hspi1);
}

uint32_t flash_read_id(void) {
  uint8_t tx[4] = {FLASH_CMD_READ_ID, 0U, 0U, 0U};
  uint8_t rx[4] = {0U};

  flash_select();
  (void)HAL_SPI_TransmitReceive(&hspi1, tx, rx, 4U, 10U);
  flash_deselect();
  return ((uint32_t)rx[1] << 16) | ((uint32_t)rx[2] << 8) | rx[3];
}

static HAL_StatusTypeDef flash_wait_ready(uint32_t timeout_ms) {
  uint8_t cmd = FLASH_CMD_READ_STATUS;
  uint8_t status = FLASH_STATUS_BUSY;
  uint32_t start = HAL_GetTick();

  while ((status & FLASH_STATUS_BUSY) != 0U) {
    if ((HAL_GetTick() - start) > timeout_ms) {
      return HAL_TIMEOUT;
    }
    flash_select();
    (void)HAL_SPI_Transmit(&hspi1, &cmd, 1U, 10U);
    (void)HAL_SPI_Receive(&hspi1, &status, 1U, 10U);
    flash_deselect();
  }
  return HAL_OK;
}

HAL_StatusTypeDef flash_read(uint32_t addr, uint8_t *buf, uint16_t len) {
  uint8_t cmd[4] = {FLASH_CMD_READ, (uint8_t)(addr >> 16), (uint8_t)(addr >> 8), (uint8_t)addr};
  HAL_StatusTypeDef st;

  flash_select();
  st = HAL_SPI_Transmit(&hspi1, cmd, 4U, 10U);
  if (st == HAL_OK) {
    st = HAL_SPI_Receive(&hspi1, buf, len, 100U);
  }
  flash_deselect();
  return st;
}

HAL_StatusTypeDef flash_program_page(uint32_t addr, const uint8_t *data, uint16_t len) {
  uint8_t wren = FLASH_CMD_WRITE_ENABLE;
  uint8_t cmd[4] = {FLASH_CMD_PAGE_PROGRAM, (uint8_t)(addr >> 16), (uint8_t)(addr >> 8), (uint8_t)addr};

  if (len > FLASH_PAGE_SIZE) {
    return HAL_ERROR;
  }
  flash_select();
  (void)HAL_SPI_Transmit(&hspi1, &wren, 1U, 10U);
  flash_deselect();

  flash_select();
  (void)HAL_SPI_Transmit(&hspi1, cmd, 4U, 10U);
  (void)HAL_SPI_Transmit_DMA(&hspi1, data, len);
  while ((SPI1->SR & SPI_SR_BSY) != 0U) {
  }
  flash_deselect();
  return flash_wait_ready(50U);
}
