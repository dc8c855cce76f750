/* General-purpose I/O: pin configuration, read, write, toggle, external interrupts. */
#ifndef BK_HAL_GPIO_H
#define BK_HAL_GPIO_H

#include "bk_hal_def.h"

typedef enum { GPIO_PIN_RESET = 0U, GPIO_PIN_SET = 1U } GPIO_PinState;

typedef enum {
  GPIO_MODE_INPUT = 0x00U,
  GPIO_MODE_OUTPUT_PP = 0x01U,
  GPIO_MODE_OUTPUT_OD = 0x11U,
  GPIO_MODE_AF_PP = 0x02U,
  GPIO_MODE_AF_OD = 0x12U,
  GPIO_MODE_ANALOG = 0x03U,
  GPIO_MODE_IT_RISING = 0x10110000U,
  GPIO_MODE_IT_FALLING = 0x10210000U
} GPIO_ModeTypeDef;

typedef enum { GPIO_NOPULL = 0U, GPIO_PULLUP = 1U, GPIO_PULLDOWN = 2U } GPIO_PullTypeDef;
typedef enum { GPIO_SPEED_FREQ_LOW = 0U, GPIO_SPEED_FREQ_MEDIUM = 1U, GPIO_SPEED_FREQ_HIGH = 2U } GPIO_SpeedTypeDef;

typedef struct {
  uint32_t Pin;
  GPIO_ModeTypeDef Mode;
  GPIO_PullTypeDef Pull;
  GPIO_SpeedTypeDef Speed;
  uint32_t Alternate;
} GPIO_InitTypeDef;

#define GPIO_PIN_0 ((uint16_t)0x0001)
#define GPIO_PIN_1 ((uint16_t)0x0002)
#define GPIO_PIN_2 ((uint16_t)0x0004)
#define GPIO_PIN_3 ((uint16_t)0x0008)
#define GPIO_PIN_4 ((uint16_t)0x0010)
#define GPIO_PIN_5 ((uint16_t)0x0020)
#define GPIO_PIN_6 ((uint16_t)0x0040)
#define GPIO_PIN_7 ((uint16_t)0x0080)
#define GPIO_PIN_8 ((uint16_t)0x0100)
#define GPIO_PIN_9 ((uint16_t)0x0200)
#define GPIO_PIN_10 ((uint16_t)0x0400)
#define GPIO_PIN_11 ((uint16_t)0x0800)
#define GPIO_PIN_12 ((uint16_t)0x1000)
#define GPIO_PIN_13 ((uint16_t)0x2000)
#define GPIO_PIN_14 ((uint16_t)0x4000)
#define GPIO_PIN_15 ((uint16_t)0x8000)
#define GPIO_PIN_All ((uint16_t)0xFFFF)

#define GPIO_AF4_I2C1 4U
#define GPIO_AF5_SPI1 5U
#define GPIO_AF7_USART1 7U
#define GPIO_AF7_USART2 7U

#define __HAL_GPIO_EXTI_GET_IT(PIN) (EXTI_PENDING & (PIN))
#define __HAL_GPIO_EXTI_CLEAR_IT(PIN) (EXTI_PENDING = (PIN))
#define EXTI_PENDING (*(volatile uint32_t *)0x40010414UL)

void HAL_GPIO_Init(GPIO_TypeDef *GPIOx, GPIO_InitTypeDef *GPIO_Init);
void HAL_GPIO_DeInit(GPIO_TypeDef *GPIOx, uint32_t GPIO_Pin);
GPIO_PinState HAL_GPIO_ReadPin(GPIO_TypeDef *GPIOx, uint16_t GPIO_Pin);
void HAL_GPIO_WritePin(GPIO_TypeDef *GPIOx, uint16_t GPIO_Pin, GPIO_PinState PinState);
void HAL_GPIO_TogglePin(GPIO_TypeDef *GPIOx, uint16_t GPIO_Pin);
HAL_StatusTypeDef HAL_GPIO_LockPin(GPIO_TypeDef *GPIOx, uint16_t GPIO_Pin);
void HAL_GPIO_EXTI_IRQHandler(uint16_t GPIO_Pin);
void HAL_GPIO_EXTI_Callback(uint16_t GPIO_Pin);

#endif /* BK_HAL_GPIO_H */
