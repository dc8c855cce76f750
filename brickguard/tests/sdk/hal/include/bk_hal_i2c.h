/* I2C master: memory reads and writes, device probing. */
#ifndef BK_HAL_I2C_H
#define BK_HAL_I2C_H

#include "bk_hal_dma.h"

typedef enum { I2C_ADDRESSINGMODE_7BIT = 0x4000U, I2C_ADDRESSINGMODE_10BIT = 0xC000U } I2C_AddressingModeTypeDef;
typedef enum { I2C_DUTYCYCLE_2 = 0x0000U, I2C_DUTYCYCLE_16_9 = 0x4000U } I2C_DutyCycleTypeDef;

typedef struct {
  uint32_t ClockSpeed;
  I2C_DutyCycleTypeDef DutyCycle;
  uint32_t OwnAddress1;
  I2C_AddressingModeTypeDef AddressingMode;
} I2C_InitTypeDef;

typedef struct {
  I2C_TypeDef *Instance;
  I2C_InitTypeDef Init;
  uint8_t *pBuffPtr;
  uint16_t XferSize;
  DMA_HandleTypeDef *hdmatx;
  DMA_HandleTypeDef *hdmarx;
  HAL_LockTypeDef Lock;
  volatile uint32_t ErrorCode;
} I2C_HandleTypeDef;

#define I2C_MEMADD_SIZE_8BIT 0x01U
#define I2C_MEMADD_SIZE_16BIT 0x10U

HAL_StatusTypeDef HAL_I2C_Init(I2C_HandleTypeDef *hi2c);
HAL_StatusTypeDef HAL_I2C_Master_Transmit(I2C_HandleTypeDef *hi2c, uint16_t DevAddress, uint8_t *pData,
                                          uint16_t Size, uint32_t Timeout);
HAL_StatusTypeDef HAL_I2C_Master_Receive(I2C_HandleTypeDef *hi2c, uint16_t DevAddress, uint8_t *pData,
                                         uint16_t Size, uint32_t Timeout);
HAL_StatusTypeDef HAL_I2C_Mem_Write(I2C_HandleTypeDef *hi2c, uint16_t DevAddress, uint16_t MemAddress,
                                    uint16_t MemAddSize, uint8_t *pData, uint16_t Size, uint32_t Timeout);
HAL_StatusTypeDef HAL_I2C_Mem_Read(I2C_HandleTypeDef *hi2c, uint16_t DevAddress, uint16_t MemAddress,
                                   uint16_t MemAddSize, uint8_t *pData, uint16_t Size, uint32_t Timeout);
HAL_StatusTypeDef HAL_I2C_Mem_Read_DMA(I2C_HandleTypeDef *hi2c, uint16_t DevAddress, uint16_t MemAddress,
                                       uint16_t MemAddSize, uint8_t *pData, uint16_t Size);
HAL_StatusTypeDef HAL_I2C_IsDeviceReady(I2C_HandleTypeDef *hi2c, uint16_t DevAddress, uint32_t Trials,
                                        uint32_t Timeout);
void HAL_I2C_EV_IRQHandler(I2C_HandleTypeDef *hi2c);
void HAL_I2C_ER_IRQHandler(I2C_HandleTypeDef *hi2c);
void HAL_I2C_MemRxCpltCallback(I2C_HandleTypeDef *hi2c);

#endif /* BK_HAL_I2C_H */
