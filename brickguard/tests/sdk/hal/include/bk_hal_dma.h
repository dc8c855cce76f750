/* DMA controller: channel setup, start, abort and interrupt service. */
#ifndef BK_HAL_DMA_H
#define BK_HAL_DMA_H

#include "bk_hal_def.h"

typedef enum {
  DMA_PERIPH_TO_MEMORY = 0x00U,
  DMA_MEMORY_TO_PERIPH = 0x10U,
  DMA_MEMORY_TO_MEMORY = 0x4000U
} DMA_DirectionTypeDef;

typedef enum { DMA_NORMAL = 0x00U, DMA_CIRCULAR = 0x20U } DMA_ModeTypeDef;
typedef enum { DMA_PRIORITY_LOW = 0U, DMA_PRIORITY_MEDIUM = 1U, DMA_PRIORITY_HIGH = 2U } DMA_PriorityTypeDef;

typedef enum {
  HAL_DMA_STATE_RESET = 0x00U,
  HAL_DMA_STATE_READY = 0x01U,
  HAL_DMA_STATE_BUSY = 0x02U
} HAL_DMA_StateTypeDef;

typedef struct {
  DMA_DirectionTypeDef Direction;
  uint32_t PeriphInc;
  uint32_t MemInc;
  DMA_ModeTypeDef Mode;
  DMA_PriorityTypeDef Priority;
} DMA_InitTypeDef;

typedef struct __DMA_HandleTypeDef {
  DMA_Channel_TypeDef *Instance;
  DMA_InitTypeDef Init;
  HAL_LockTypeDef Lock;
  volatile HAL_DMA_StateTypeDef State;
  void *Parent;
  void (*XferCpltCallback)(struct __DMA_HandleTypeDef *hdma);
  void (*XferErrorCallback)(struct __DMA_HandleTypeDef *hdma);
} DMA_HandleTypeDef;

#define DMA_PINC_ENABLE 0x40U
#define DMA_PINC_DISABLE 0x00U
#define DMA_MINC_ENABLE 0x80U
#define DMA_MINC_DISABLE 0x00U

#define __HAL_LINKDMA(HANDLE, FIELD, DMAH) \
  do {                                     \
    (HANDLE)->FIELD = &(DMAH);             \
    (DMAH).Parent = (HANDLE);              \
  } while (0)

HAL_StatusTypeDef HAL_DMA_Init(DMA_HandleTypeDef *hdma);
HAL_StatusTypeDef HAL_DMA_DeInit(DMA_HandleTypeDef *hdma);
HAL_StatusTypeDef HAL_DMA_Start(DMA_HandleTypeDef *hdma, uint32_t SrcAddress, uint32_t DstAddress,
                                uint32_t DataLength);
HAL_StatusTypeDef HAL_DMA_Start_IT(DMA_HandleTypeDef *hdma, uint32_t SrcAddress, uint32_t DstAddress,
                                   uint32_t DataLength);
HAL_StatusTypeDef HAL_DMA_Abort(DMA_HandleTypeDef *hdma);
HAL_StatusTypeDef HAL_DMA_PollForTransfer(DMA_HandleTypeDef *hdma, uint32_t Timeout);
void HAL_DMA_IRQHandler(DMA_HandleTypeDef *hdma);
HAL_DMA_StateTypeDef HAL_DMA_GetState(DMA_HandleTypeDef *hdma);

#endif /* BK_HAL_DMA_H */
