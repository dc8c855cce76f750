/* Demo: a temperature and humidity sensor on I2C1, read by polling and by DMA. */
#include "bk_hal.h"

#define SENSOR_ADDR (0x44U << 1)
#define SENSOR_REG_ID 0x0FU
#define SENSOR_REG_CTRL 0x20U
#define SENSOR_REG_DATA 0x28U
#define SENSOR_ID 0xBCU

static I2C_HandleTypeDef hi2c1;
static DMA_HandleTypeDef hdma_i2c1_rx;
static uint8_t sample_raw[4];
static volatile uint8_t sample_ready;

typedef struct {
  int16_t centi_celsius;
  uint16_t permille_rh;
} sensor_sample_t;

static void i2c_pins_init(void) {
  GPIO_InitTypeDef init = {0};

  __HAL_RCC_GPIOB_CLK_ENABLE();
  init.Pin = GPIO_PIN_6 | GPIO_PIN_7;
  init.Mode = GPIO_MODE_AF_OD;
  init.Pull = GPIO_NOPULL;
  init.Speed = GPIO_SPEED_FREQ_HIGH;
  init.Alternate = GPIO_AF4_I2C1;
  HAL_GPIO_Init(GPIOB, &init);
}

HAL_StatusTypeDef sensor_bus_init(void) {
  i2c_pins_init();
  __HAL_RCC_I2C1_CLK_ENABLE();
  __HAL_RCC_DMA1_CLK_ENABLE();

  hi2c1.Instance = I2C1;
  hi2c1.Init.ClockSpeed = 400000U;
  hi2c1.Init.DutyCycle = I2C_DUTYCYCLE_2;
  hi2c1.Init.OwnAddress1 = 0U;
  hi2c1.Init.AddressingMode = I2C_ADDRESSINGMODE_7BIT;
  if (HAL_I2C_Init(&hi2c1) != HAL_OK) {
    return HAL_ERROR;
  }

  hdma_i2c1_rx.Instance = DMA1_Channel1;
  hdma_i2c1_rx.Init.Direction = DMA_PERIPH_TO_MEMORY;
  hdma_i2c1_rx.Init.PeriphInc = DMA_PINC_DISABLE;
  hdma_i2c1_rx.Init.MemInc = DMA_MINC_ENABLE;
  hdma_i2c1_rx.Init.Mode = DMA_NORMAL;
  hdma_i2c1_rx.Init.Priority = DMA_PRIORITY_MEDIUM;
  (void)HAL_DMA_Init(&hdma_i2c1_rx);
  __HAL_LINKDMA(&hi2c1, hdmarx, hdma_i2c1_rx);

  NVIC_SetPriority(I2C1_EV_IRQn, 4U);
  NVIC_EnableIRQ(I2C1_EV_IRQn);
  NVIC_EnableIRQ(I2C1_ER_IRQn);
  NVIC_EnableIRQ(DMA1_Channel1_IRQn);
  return HAL_OK;
}

HAL_StatusTypeDef sensor_probe(void) {
  uint8_t id = 0U;

  if (HAL_I2C_IsDeviceReady(&hi2c1, SENSOR_ADDR, 3U, 10U) != HAL_OK) {
    return HAL_TIMEOUT;
  }
  if (HAL_I2C_Mem_Read(&hi2c1, SENSOR_ADDR, SENSOR_REG_ID, I2C_MEMADD_SIZE_8BIT, &id, 1U, 10U) != HAL_OK) {
    return HAL_ERROR;
  }
  return (id == SENSOR_ID) ? HAL_OK : HAL_ERROR;
}

HAL_StatusTypeDef sensor_start(void) {
  uint8_t ctrl = 0x81U;

  return HAL_I2C_Mem_Write(&hi2c1, SENSOR_ADDR, SENSOR_REG_CTRL, I2C_MEMADD_SIZE_8BIT, &ctrl, 1U, 10U);
}

HAL_StatusTypeDef sensor_request(void) {
  sample_ready = 0U;
  return HAL_I2C_Mem_Read_DMA(&hi2c1, SENSOR_ADDR, SENSOR_REG_DATA, I2C_MEMADD_SIZE_8BIT, sample_raw,
                              (uint16_t)sizeof(sample_raw));
}

void HAL_I2C_MemRxCpltCallback(I2C_HandleTypeDef *hi2c) {
  if (hi2c->Instance == I2C1) {
    sample_ready = 1U;
  }
}

int sensor_read(sensor_sample_t *out) {
  uint16_t raw_t;
  uint16_t raw_h;

  if (sample_ready == 0U) {
    return 0;
  }
  raw_t = (uint16_t)((sample_raw[0] << 8) | sample_raw[1]);
  raw_h = (uint16_t)((sample_raw[2] << 8) | sample_raw[3]);
  out->centi_celsius = (int16_t)(((int32_t)raw_t * 17500) / 65535 - 4500);
  out->permille_rh = (uint16_t)(((uint32_t)raw_h * 1000U) / 65535U);
  return 1;
}

HAL_StatusTypeDef sensor_read_blocking(uint8_t *buf, uint16_t len) {
  uint8_t cmd = SENSOR_REG_DATA;

  if (HAL_I2C_Master_Transmit(&hi2c1, SENSOR_ADDR, &cmd, 1U, 10U) != HAL_OK) {
    return HAL_ERROR;
  }
  return HAL_I2C_Master_Receive(&hi2c1, SENSOR_ADDR, buf, len, 10U);
}

void I2C1_EV_IRQHandler(void) { HAL_I2C_EV_IRQHandler(&hi2c1); }
void I2C1_ER_IRQHandler(void) { HAL_I2C_ER_IRQHandler(&hi2c1); }
void DMA1_Channel1_IRQHandler(void) { HAL_DMA_IRQHandler(&hdma_i2c1_rx); }
