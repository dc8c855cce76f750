/* Common HAL definitions: status codes, lock and state types. */
#ifndef BK_HAL_DEF_H
#define BK_HAL_DEF_H

#include <stddef.h>
#include <stdint.h>

#include "bk32f4.h"

typedef enum {
  HAL_OK = 0x00U,
  HAL_ERROR = 0x01U,
  HAL_BUSY = 0x02U,
  HAL_TIMEOUT = 0x03U
} HAL_StatusTypeDef;

typedef enum { HAL_UNLOCKED = 0x00U, HAL_LOCKED = 0x01U } HAL_LockTypeDef;

#define HAL_MAX_DELAY 0xFFFFFFFFU
#define UNUSED(X) (void)(X)
#define HAL_IS_BIT_SET(REG, BIT) (((REG) & (BIT)) == (BIT))
#define HAL_IS_BIT_CLR(REG, BIT) (((REG) & (BIT)) == 0U)

HAL_StatusTypeDef HAL_Init(void);
void HAL_Delay(uint32_t Delay);
uint32_t HAL_GetTick(void);
void HAL_IncTick(void);

#endif /* BK_HAL_DEF_H */
