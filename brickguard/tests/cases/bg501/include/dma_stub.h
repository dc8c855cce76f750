/* The STM32 HAL DMA calls and CMSIS cache maintenance, as the BG5xx fixtures use them. */
#ifndef DMA_STUB_H
#define DMA_STUB_H
#include <stddef.h>
#include <stdint.h>
typedef struct { uint32_t state; } UART_HandleTypeDef;
typedef struct { uint32_t state; } SPI_HandleTypeDef;
typedef int HAL_StatusTypeDef;
HAL_StatusTypeDef HAL_UART_Transmit_DMA(UART_HandleTypeDef *h, const uint8_t *data, uint16_t n);
HAL_StatusTypeDef HAL_UART_Receive_DMA(UART_HandleTypeDef *h, uint8_t *data, uint16_t n);
HAL_StatusTypeDef HAL_SPI_Transmit_DMA(SPI_HandleTypeDef *h, const uint8_t *data, uint16_t n);
HAL_StatusTypeDef HAL_SPI_Receive_DMA(SPI_HandleTypeDef *h, uint8_t *data, uint16_t n);
void SCB_CleanDCache(void);
void SCB_InvalidateDCache(void);
void SCB_CleanDCache_by_Addr(volatile void *addr, int32_t size);
void SCB_InvalidateDCache_by_Addr(volatile void *addr, int32_t size);
void SCB_CleanInvalidateDCache_by_Addr(volatile void *addr, int32_t size);
void *memcpy(void *dst, const void *src, size_t n);
void consume(uint8_t b);
#endif
