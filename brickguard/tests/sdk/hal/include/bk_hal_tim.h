/* Timers: time base, PWM output and update interrupts. */
#ifndef BK_HAL_TIM_H
#define BK_HAL_TIM_H

#include "bk_hal_def.h"

typedef enum { TIM_COUNTERMODE_UP = 0x00U, TIM_COUNTERMODE_DOWN = 0x10U } TIM_CounterModeTypeDef;
typedef enum { TIM_CHANNEL_1 = 0x00U, TIM_CHANNEL_2 = 0x04U, TIM_CHANNEL_3 = 0x08U, TIM_CHANNEL_4 = 0x0CU } TIM_ChannelTypeDef;
typedef enum { TIM_OCMODE_TIMING = 0x00U, TIM_OCMODE_PWM1 = 0x60U, TIM_OCMODE_PWM2 = 0x70U } TIM_OCModeTypeDef;
typedef enum { TIM_OCPOLARITY_HIGH = 0x00U, TIM_OCPOLARITY_LOW = 0x02U } TIM_OCPolarityTypeDef;

typedef struct {
  uint32_t Prescaler;
  TIM_CounterModeTypeDef CounterMode;
  uint32_t Period;
  uint32_t ClockDivision;
  uint32_t RepetitionCounter;
} TIM_Base_InitTypeDef;

typedef struct {
  TIM_OCModeTypeDef OCMode;
  uint32_t Pulse;
  TIM_OCPolarityTypeDef OCPolarity;
} TIM_OC_InitTypeDef;

typedef struct {
  TIM_TypeDef *Instance;
  TIM_Base_InitTypeDef Init;
  HAL_LockTypeDef Lock;
  volatile uint32_t State;
} TIM_HandleTypeDef;

#define TIM_CLOCKDIVISION_DIV1 0x00U
#define __HAL_TIM_SET_COMPARE(HANDLE, CHANNEL, COMPARE) ((HANDLE)->Instance->CCR1 = (COMPARE))
#define __HAL_TIM_GET_COUNTER(HANDLE) ((HANDLE)->Instance->CNT)
#define __HAL_TIM_SET_AUTORELOAD(HANDLE, AUTORELOAD) ((HANDLE)->Instance->ARR = (AUTORELOAD))

HAL_StatusTypeDef HAL_TIM_Base_Init(TIM_HandleTypeDef *htim);
HAL_StatusTypeDef HAL_TIM_Base_Start(TIM_HandleTypeDef *htim);
HAL_StatusTypeDef HAL_TIM_Base_Start_IT(TIM_HandleTypeDef *htim);
HAL_StatusTypeDef HAL_TIM_Base_Stop_IT(TIM_HandleTypeDef *htim);
HAL_StatusTypeDef HAL_TIM_PWM_Init(TIM_HandleTypeDef *htim);
HAL_StatusTypeDef HAL_TIM_PWM_ConfigChannel(TIM_HandleTypeDef *htim, TIM_OC_InitTypeDef *sConfig,
                                            TIM_ChannelTypeDef Channel);
HAL_StatusTypeDef HAL_TIM_PWM_Start(TIM_HandleTypeDef *htim, TIM_ChannelTypeDef Channel);
HAL_StatusTypeDef HAL_TIM_PWM_Stop(TIM_HandleTypeDef *htim, TIM_ChannelTypeDef Channel);
void HAL_TIM_IRQHandler(TIM_HandleTypeDef *htim);
void HAL_TIM_PeriodElapsedCallback(TIM_HandleTypeDef *htim);

#endif /* BK_HAL_TIM_H */
