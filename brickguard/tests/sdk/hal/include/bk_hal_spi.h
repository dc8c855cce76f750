/* SPI master: full-duplex, transmit-only and DMA transfers. */
#ifndef BK_HAL_SPI_H
#define BK_HAL_SPI_H

#include "bk_hal_dma.h"

typedef enum { SPI_MODE_SLAVE = 0x000U, SPI_MODE_MASTER = 0x104U } SPI_ModeTypeDef;
typedef enum { SPI_DIRECTION_2LINES = 0x000U, SPI_DIRECTION_1LINE = 0x8000U } SPI_DirectionTypeDef;
typedef enum { SPI_DATASIZE_8BIT = 0x000U, SPI_DATASIZE_16BIT = 0x800U } SPI_DataSizeTypeDef;
typedef enum { SPI_POLARITY_LOW = 0x0U, SPI_POLARITY_HIGH = 0x2U } SPI_PolarityTypeDef;
typedef enum { SPI_PHASE_1EDGE = 0x0U, SPI_PHASE_2EDGE = 0x1U } SPI_PhaseTypeDef;
typedef enum {
  SPI_BAUDRATEPRESCALER_2 = 0x00U,
  SPI_BAUDRATEPRESCALER_8 = 0x10U,
  SPI_BAUDRATEPRESCALER_32 = 0x20U,
  SPI_BAUDRATEPRESCALER_256 = 0x38U
} SPI_BaudRatePrescalerTypeDef;

typedef struct {
  SPI_ModeTypeDef Mode;
  SPI_DirectionTypeDef Direction;
  SPI_DataSizeTypeDef DataSize;
  SPI_PolarityTypeDef CLKPolarity;
  SPI_PhaseTypeDef CLKPhase;
  SPI_BaudRatePrescalerTypeDef BaudRatePrescaler;
} SPI_InitTypeDef;

typedef struct {
  SPI_TypeDef *Instance;
  SPI_InitTypeDef Init;
  DMA_HandleTypeDef *hdmatx;
  DMA_HandleTypeDef *hdmarx;
  HAL_LockTypeDef Lock;
  volatile uint32_t ErrorCode;
} SPI_HandleTypeDef;

HAL_StatusTypeDef HAL_SPI_Init(SPI_HandleTypeDef *hspi);
HAL_StatusTypeDef HAL_SPI_Transmit(SPI_HandleTypeDef *hspi, const uint8_t *pData, uint16_t Size,
                                   uint32_t Timeout);
HAL_StatusTypeDef HAL_SPI_Receive(SPI_HandleTypeDef *hspi, uint8_t *pData, uint16_t Size, uint32_t Timeout);
HAL_StatusTypeDef HAL_SPI_TransmitReceive(SPI_HandleTypeDef *hspi, const uint8_t *pTxData, uint8_t *pRxData,
                                          uint16_t Size, uint32_t Timeout);
HAL_StatusTypeDef HAL_SPI_Transmit_DMA(SPI_HandleTypeDef *hspi, const uint8_t *pData, uint16_t Size);
HAL_StatusTypeDef HAL_SPI_Receive_DMA(SPI_HandleTypeDef *hspi, uint8_t *pData, uint16_t Size);
void HAL_SPI_IRQHandler(SPI_HandleTypeDef *hspi);
void HAL_SPI_TxCpltCallback(SPI_HandleTypeDef *hspi);

#endif /* BK_HAL_SPI_H */
