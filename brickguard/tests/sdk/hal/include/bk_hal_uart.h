/* UART: blocking, interrupt and DMA transfers. */
#ifndef BK_HAL_UART_H
#define BK_HAL_UART_H

#include "bk_hal_dma.h"

typedef enum { UART_WORDLENGTH_8B = 0x0000U, UART_WORDLENGTH_9B = 0x1000U } UART_WordLengthTypeDef;
typedef enum { UART_STOPBITS_1 = 0x0000U, UART_STOPBITS_2 = 0x2000U } UART_StopBitsTypeDef;
typedef enum { UART_PARITY_NONE = 0x0000U, UART_PARITY_EVEN = 0x0400U, UART_PARITY_ODD = 0x0600U } UART_ParityTypeDef;
typedef enum { UART_MODE_RX = 0x04U, UART_MODE_TX = 0x08U, UART_MODE_TX_RX = 0x0CU } UART_ModeTypeDef;
typedef enum { UART_HWCONTROL_NONE = 0x00U, UART_HWCONTROL_RTS_CTS = 0x300U } UART_HwFlowCtlTypeDef;

typedef enum {
  HAL_UART_STATE_RESET = 0x00U,
  HAL_UART_STATE_READY = 0x20U,
  HAL_UART_STATE_BUSY_TX = 0x21U,
  HAL_UART_STATE_BUSY_RX = 0x22U
} HAL_UART_StateTypeDef;

typedef struct {
  uint32_t BaudRate;
  UART_WordLengthTypeDef WordLength;
  UART_StopBitsTypeDef StopBits;
  UART_ParityTypeDef Parity;
  UART_ModeTypeDef Mode;
  UART_HwFlowCtlTypeDef HwFlowCtl;
} UART_InitTypeDef;

typedef struct __UART_HandleTypeDef {
  USART_TypeDef *Instance;
  UART_InitTypeDef Init;
  const uint8_t *pTxBuffPtr;
  uint16_t TxXferSize;
  uint8_t *pRxBuffPtr;
  uint16_t RxXferSize;
  DMA_HandleTypeDef *hdmatx;
  DMA_HandleTypeDef *hdmarx;
  HAL_LockTypeDef Lock;
  volatile HAL_UART_StateTypeDef gState;
  volatile uint32_t ErrorCode;
} UART_HandleTypeDef;

#define HAL_UART_ERROR_NONE 0x00U
#define HAL_UART_ERROR_PE 0x01U
#define HAL_UART_ERROR_FE 0x04U
#define HAL_UART_ERROR_ORE 0x08U

#define UART_IT_RXNE USART_CR1_RXNEIE
#define __HAL_UART_ENABLE_IT(HANDLE, IT) ((HANDLE)->Instance->CR1 |= (IT))
#define __HAL_UART_DISABLE_IT(HANDLE, IT) ((HANDLE)->Instance->CR1 &= ~(IT))
#define __HAL_UART_GET_FLAG(HANDLE, FLAG) (((HANDLE)->Instance->SR & (FLAG)) == (FLAG))

HAL_StatusTypeDef HAL_UART_Init(UART_HandleTypeDef *huart);
HAL_StatusTypeDef HAL_UART_DeInit(UART_HandleTypeDef *huart);
HAL_StatusTypeDef HAL_UART_Transmit(UART_HandleTypeDef *huart, const uint8_t *pData, uint16_t Size,
                                    uint32_t Timeout);
HAL_StatusTypeDef HAL_UART_Receive(UART_HandleTypeDef *huart, uint8_t *pData, uint16_t Size,
                                   uint32_t Timeout);
HAL_StatusTypeDef HAL_UART_Transmit_IT(UART_HandleTypeDef *huart, const uint8_t *pData, uint16_t Size);
HAL_StatusTypeDef HAL_UART_Receive_IT(UART_HandleTypeDef *huart, uint8_t *pData, uint16_t Size);
HAL_StatusTypeDef HAL_UART_Transmit_DMA(UART_HandleTypeDef *huart, const uint8_t *pData, uint16_t Size);
HAL_StatusTypeDef HAL_UART_Receive_DMA(UART_HandleTypeDef *huart, uint8_t *pData, uint16_t Size);
HAL_StatusTypeDef HAL_UART_DMAStop(UART_HandleTypeDef *huart);
HAL_StatusTypeDef HAL_UART_Abort(UART_HandleTypeDef *huart);
void HAL_UART_IRQHandler(UART_HandleTypeDef *huart);
void HAL_UART_TxCpltCallback(UART_HandleTypeDef *huart);
void HAL_UART_RxCpltCallback(UART_HandleTypeDef *huart);
void HAL_UART_ErrorCallback(UART_HandleTypeDef *huart);
HAL_UART_StateTypeDef HAL_UART_GetState(UART_HandleTypeDef *huart);
uint32_t HAL_UART_GetError(UART_HandleTypeDef *huart);

#endif /* BK_HAL_UART_H */
