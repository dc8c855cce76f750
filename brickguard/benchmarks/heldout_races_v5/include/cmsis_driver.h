/* Arm CMSIS-Driver 2.x (Driver_Common.h, Driver_USART.h, Driver_SPI.h) as a vendor's driver pack
 * provides them on an STM32F429 (Cortex-M4, 4 priority bits), reduced to what this corpus uses.
 * - The driver instances (Driver_USART3, Driver_SPI1) are defined in the vendor's library: the
 *   program sees only the access structs. The ARM_USART_SignalEvent_t / ARM_SPI_SignalEvent_t
 *   callback passed to Initialize() is called from the driver's interrupt handler (USART3_IRQHandler
 *   / the SPI1 DMA handlers, NVIC level 5) - interrupt context.
 * - Send/Receive/Transfer return at once; the driver (its DMA) reads or writes the buffers until
 *   the completion event.
 * - CMSIS core names from cm_core.h (inline). */
#ifndef CMSIS_DRIVER_H
#define CMSIS_DRIVER_H
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
typedef enum IRQn {
    SysTick_IRQn = -1,
    EXTI0_IRQn = 6,
    TIM2_IRQn = 28,
    USART3_IRQn = 39,
    DMA2_Stream3_IRQn = 59,
} IRQn_Type;
#define __NVIC_PRIO_BITS 4U
#define __CORTEX_M 4U
#include "cm_core.h"

#define ARM_DRIVER_OK 0
#define ARM_DRIVER_ERROR -1
#define ARM_DRIVER_ERROR_BUSY -2
typedef enum { ARM_POWER_OFF, ARM_POWER_LOW, ARM_POWER_FULL } ARM_POWER_STATE;

#define ARM_USART_MODE_ASYNCHRONOUS (0x01UL << 0)
#define ARM_USART_DATA_BITS_8 (0UL << 8)
#define ARM_USART_CONTROL_TX 0x15UL
#define ARM_USART_CONTROL_RX 0x16UL
#define ARM_USART_ABORT_RECEIVE 0x19UL
#define ARM_USART_EVENT_SEND_COMPLETE (1UL << 0)
#define ARM_USART_EVENT_RECEIVE_COMPLETE (1UL << 1)
#define ARM_USART_EVENT_TRANSFER_COMPLETE (1UL << 2)
#define ARM_USART_EVENT_TX_COMPLETE (1UL << 3)
#define ARM_USART_EVENT_TX_UNDERFLOW (1UL << 4)
#define ARM_USART_EVENT_RX_OVERFLOW (1UL << 5)
#define ARM_USART_EVENT_RX_TIMEOUT (1UL << 6)
#define ARM_USART_EVENT_RX_BREAK (1UL << 7)
#define ARM_USART_EVENT_RX_FRAMING_ERROR (1UL << 8)
#define ARM_USART_EVENT_RX_PARITY_ERROR (1UL << 9)
typedef void (*ARM_USART_SignalEvent_t)(uint32_t event);
typedef struct _ARM_DRIVER_USART {
    int32_t (*Initialize)(ARM_USART_SignalEvent_t cb_event);
    int32_t (*Uninitialize)(void);
    int32_t (*PowerControl)(ARM_POWER_STATE state);
    int32_t (*Send)(const void *data, uint32_t num);
    int32_t (*Receive)(void *data, uint32_t num);
    int32_t (*Transfer)(const void *data_out, void *data_in, uint32_t num);
    uint32_t (*GetTxCount)(void);
    uint32_t (*GetRxCount)(void);
    int32_t (*Control)(uint32_t control, uint32_t arg);
} const ARM_DRIVER_USART;
extern ARM_DRIVER_USART Driver_USART3;

#define ARM_SPI_MODE_MASTER (0x01UL << 0)
#define ARM_SPI_CPOL0_CPHA0 (0UL << 8)
#define ARM_SPI_DATA_BITS(n) (((n) & 0x3FUL) << 12)
#define ARM_SPI_EVENT_TRANSFER_COMPLETE (1UL << 0)
#define ARM_SPI_EVENT_DATA_LOST (1UL << 1)
typedef void (*ARM_SPI_SignalEvent_t)(uint32_t event);
typedef struct _ARM_DRIVER_SPI {
    int32_t (*Initialize)(ARM_SPI_SignalEvent_t cb_event);
    int32_t (*Uninitialize)(void);
    int32_t (*PowerControl)(ARM_POWER_STATE state);
    int32_t (*Send)(const void *data, uint32_t num);
    int32_t (*Receive)(void *data, uint32_t num);
    int32_t (*Transfer)(const void *data_out, void *data_in, uint32_t num);
    uint32_t (*GetDataCount)(void);
    int32_t (*Control)(uint32_t control, uint32_t arg);
} const ARM_DRIVER_SPI;
extern ARM_DRIVER_SPI Driver_SPI1;

/* board code of these programs: declared, defined elsewhere */
uint32_t board_millis(void);
void board_init(void);
void dac_chip_select(bool on);
int printf(const char *fmt, ...);
#endif
