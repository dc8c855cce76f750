/* Minimal STM32-HAL-style UART API for the held-out race corpus (names as in ST's HAL, declared
 * here so the files parse without it). Written for this corpus. */
#ifndef HELDOUT_HAL_MINI_H
#define HELDOUT_HAL_MINI_H

#include "board.h"

typedef enum { HAL_OK = 0, HAL_ERROR = 1, HAL_BUSY = 2 } HAL_StatusTypeDef;

typedef struct {
    USART_TypeDef *Instance;
    uint8_t *pRxBuffPtr;
    uint16_t RxXferSize;
} UART_HandleTypeDef;

HAL_StatusTypeDef HAL_UART_Receive_IT(UART_HandleTypeDef *huart, uint8_t *data, uint16_t size);
void HAL_UART_IRQHandler(UART_HandleTypeDef *huart);
void HAL_NVIC_SetPriority(IRQn_Type irq, uint32_t preempt, uint32_t sub);
void HAL_NVIC_EnableIRQ(IRQn_Type irq);

#endif
