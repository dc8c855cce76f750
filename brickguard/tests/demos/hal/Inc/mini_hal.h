/* A stand-in for a vendor HAL (the names and protocol of ST's STM32 HAL, nothing else). */
#ifndef MINI_HAL_H
#define MINI_HAL_H
#include <stdint.h>
typedef enum { HAL_OK = 0, HAL_ERROR = 1 } HAL_StatusTypeDef;
typedef enum {
    I2C1_EV_IRQn = 31, I2C1_ER_IRQn = 32, I2C2_EV_IRQn = 33, I2C2_ER_IRQn = 34, USART2_IRQn = 38
} IRQn_Type;
typedef struct { volatile uint32_t CR1; } I2C_TypeDef;
typedef struct { volatile uint32_t MODER; } GPIO_TypeDef;
typedef struct { volatile uint32_t SR; } USART_TypeDef;
#define I2C1 ((I2C_TypeDef *)0x40005400u)
#define I2C2 ((I2C_TypeDef *)0x40005800u)
#define GPIOB ((GPIO_TypeDef *)0x40020400u)
#define USART2 ((USART_TypeDef *)0x40004400u)
typedef struct { I2C_TypeDef *Instance; uint32_t State; } I2C_HandleTypeDef;
typedef struct { USART_TypeDef *Instance; } UART_HandleTypeDef;
typedef struct { uint32_t Pin; uint32_t Mode; uint32_t Alternate; } GPIO_InitTypeDef;
extern volatile uint32_t RCC_APB1ENR, RCC_AHB1ENR;
#define __HAL_RCC_I2C1_CLK_ENABLE() do { RCC_APB1ENR |= (1u << 21); } while (0)
#define __HAL_RCC_I2C2_CLK_ENABLE() do { RCC_APB1ENR |= (1u << 22); } while (0)
#define __HAL_RCC_GPIOB_CLK_ENABLE() do { RCC_AHB1ENR |= (1u << 1); } while (0)
#define __HAL_RCC_USART2_CLK_ENABLE() do { RCC_APB1ENR |= (1u << 17); } while (0)
HAL_StatusTypeDef HAL_Init(void);
void HAL_GPIO_Init(GPIO_TypeDef *port, GPIO_InitTypeDef *init);
void HAL_NVIC_SetPriority(IRQn_Type irq, uint32_t pre, uint32_t sub);
void HAL_NVIC_EnableIRQ(IRQn_Type irq);
HAL_StatusTypeDef HAL_I2C_Init(I2C_HandleTypeDef *h);
void HAL_I2C_MspInit(I2C_HandleTypeDef *h);
HAL_StatusTypeDef HAL_I2C_Slave_Receive_IT(I2C_HandleTypeDef *h, uint8_t *buf, uint16_t n);
HAL_StatusTypeDef HAL_I2C_Master_Transmit_IT(I2C_HandleTypeDef *h, uint16_t addr, uint8_t *buf,
                                             uint16_t n);
void HAL_I2C_EV_IRQHandler(I2C_HandleTypeDef *h);
void HAL_I2C_ER_IRQHandler(I2C_HandleTypeDef *h);
void HAL_I2C_SlaveRxCpltCallback(I2C_HandleTypeDef *h);
void HAL_I2C_MasterTxCpltCallback(I2C_HandleTypeDef *h);
void HAL_I2C_ErrorCallback(I2C_HandleTypeDef *h);
HAL_StatusTypeDef HAL_UART_Init(UART_HandleTypeDef *h);
HAL_StatusTypeDef HAL_UART_Transmit_IT(UART_HandleTypeDef *h, uint8_t *buf, uint16_t n);
void HAL_UART_MspInit(UART_HandleTypeDef *h);
void HAL_UART_TxCpltCallback(UART_HandleTypeDef *h);
#endif
