/* NXP S32K1xx SDK (S32 Design Studio RTM) subset for an S32K144 (Cortex-M4F), written for this
 * corpus with the SDK's names. __NVIC_PRIO_BITS is 4 (priorities 0 most urgent .. 15); the SDK
 * leaves PRIGROUP at reset (0), so all four bits are pre-emption bits.
 * Inline (bodies here): the CMSIS-Core intrinsics (cmsis_core.h).
 * Body-less library functions, declared only, with their documented effect:
 *   INT_SYS_EnableIRQ / INT_SYS_DisableIRQ(irq): enable / disable one interrupt in the NVIC.
 *   INT_SYS_SetPriority(irq, prio): that interrupt's priority (0..15).
 *   INT_SYS_InstallHandler(irq, new, &old): puts `new` into the RAM vector table: it runs as the
 *     handler of irq.
 *   INT_SYS_DisableIRQGlobal(): sets PRIMASK and counts the nesting; INT_SYS_EnableIRQGlobal():
 *     decrements the count and clears PRIMASK when it reaches zero.
 *   LPUART_DRV_Init(instance, &state, &cfg): installs the driver's own LPUARTn_RxTx_IRQHandler.
 *   LPUART_DRV_InstallRxCallback(instance, cb, param): cb(driverState, event, param) is called from
 *     the driver's LPUART interrupt handler (interrupt context): UART_EVENT_RX_FULL when the buffer
 *     given to LPUART_DRV_ReceiveData is full (cb may call LPUART_DRV_SetRxBuffer to continue
 *     into a new buffer), UART_EVENT_END_TRANSFER when the reception ends.
 *   LPUART_DRV_InstallTxCallback: likewise for transmission (UART_EVENT_TX_EMPTY, END_TRANSFER).
 *   LPUART_DRV_ReceiveData(instance, buf, n): starts an interrupt-driven reception into buf and
 *     returns at once. LPUART_DRV_SendData(instance, buf, n): starts an interrupt-driven send
 *     (the driver reads buf from its interrupt until done). LPUART_DRV_SendDataBlocking(.., timeout):
 *     returns when sent. LPUART_DRV_SetRxBuffer(instance, buf, n): the next n bytes go to buf.
 *   LPIT_DRV_Init / LPIT_DRV_InitChannel / LPIT_DRV_StartTimerChannels(instance, mask): start the
 *     channels; each raises LPIT0_ChN_IRQn on timeout. LPIT_DRV_ClearInterruptFlagTimerChannels
 *     clears the flags. LPIT_DRV_GetCurrentTimerCount: the channel's down-counter.
 *   FTM_DRV_*: FlexTimer; FTM_DRV_ClearStatusFlags clears the overflow flag.
 *   PINS_DRV_ClearPinIntFlagCmd / PINS_DRV_GetPortIntFlag: port interrupt flags;
 *     PINS_DRV_WritePin / PINS_DRV_TogglePins: output pins.
 *   OSIF_TimeDelay(ms): busy-waits (bare metal); OSIF_GetMilliseconds(): ms since start. */
#ifndef S32K_SDK_H
#define S32K_SDK_H
#define __NVIC_PRIO_BITS 4U
#include "cmsis_core.h"
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

typedef enum { STATUS_SUCCESS = 0, STATUS_ERROR = 1, STATUS_BUSY = 2, STATUS_TIMEOUT = 3 } status_t;
enum { LPIT0_Ch0_IRQn = 48, LPIT0_Ch1_IRQn = 49, LPIT0_Ch2_IRQn = 50, LPUART1_RxTx_IRQn = 33,
       LPUART0_RxTx_IRQn = 31, PORTC_IRQn = 61, PORTE_IRQn = 63, FTM0_Ovf_Reload_IRQn = 104,
       FTM1_Ovf_Reload_IRQn = 112, ADC0_IRQn = 39 };
typedef enum { UART_EVENT_RX_FULL = 0, UART_EVENT_TX_EMPTY = 1, UART_EVENT_END_TRANSFER = 2,
               UART_EVENT_ERROR = 3 } uart_event_t;
typedef void (*uart_callback_t)(void *driverState, uart_event_t event, void *userData);
typedef void (*isr_t)(void);
typedef struct { uint32_t baudRate; uint8_t parityMode, stopBitCount, bitCountPerChar, transferType; } lpuart_user_config_t;
typedef struct { uint32_t opaque[16]; } lpuart_state_t;
typedef struct { uint32_t period; bool chainChannel; bool isInterruptEnabled; } lpit_user_channel_config_t;
typedef struct { volatile uint32_t PCR[32]; uint32_t r[8]; volatile uint32_t ISFR; } PORT_Type;
typedef struct { volatile uint32_t PDOR, PSOR, PCOR, PTOR, PDIR, PDDR; } GPIO_Type;
typedef struct { volatile uint32_t SC, CNT, MOD; volatile uint32_t CV[8]; } FTM_Type;
#define PORTC ((PORT_Type *)0x4004B000UL)
#define PORTE ((PORT_Type *)0x4004D000UL)
#define PTC ((GPIO_Type *)0x400FF080UL)
#define PTD ((GPIO_Type *)0x400FF0C0UL)
#define FTM0 ((FTM_Type *)0x40038000UL)
#define FTM1 ((FTM_Type *)0x40039000UL)
#define INST_LPUART1 1U
#define INST_LPIT1 0U

void INT_SYS_EnableIRQ(int32_t irqNumber);
void INT_SYS_DisableIRQ(int32_t irqNumber);
void INT_SYS_SetPriority(int32_t irqNumber, uint8_t priority);
void INT_SYS_InstallHandler(int32_t irqNumber, const isr_t newHandler, isr_t *const oldHandler);
void INT_SYS_EnableIRQGlobal(void);
void INT_SYS_DisableIRQGlobal(void);
status_t LPUART_DRV_Init(uint32_t instance, lpuart_state_t *lpuartStatePtr, const lpuart_user_config_t *lpuartUserConfig);
uart_callback_t LPUART_DRV_InstallRxCallback(uint32_t instance, uart_callback_t function, void *callbackParam);
uart_callback_t LPUART_DRV_InstallTxCallback(uint32_t instance, uart_callback_t function, void *callbackParam);
status_t LPUART_DRV_ReceiveData(uint32_t instance, uint8_t *rxBuff, uint32_t rxSize);
status_t LPUART_DRV_SendData(uint32_t instance, const uint8_t *txBuff, uint32_t txSize);
status_t LPUART_DRV_SendDataBlocking(uint32_t instance, const uint8_t *txBuff, uint32_t txSize, uint32_t timeout);
status_t LPUART_DRV_SetRxBuffer(uint32_t instance, uint8_t *rxBuff, uint32_t rxSize);
status_t LPUART_DRV_GetTransmitStatus(uint32_t instance, uint32_t *bytesRemaining);
void LPIT_DRV_Init(uint32_t instance, const void *userConfig);
status_t LPIT_DRV_InitChannel(uint32_t instance, uint32_t channel, const lpit_user_channel_config_t *userChannelConfig);
void LPIT_DRV_StartTimerChannels(uint32_t instance, uint32_t mask);
void LPIT_DRV_ClearInterruptFlagTimerChannels(uint32_t instance, uint32_t mask);
uint32_t LPIT_DRV_GetCurrentTimerCount(uint32_t instance, uint32_t channel);
status_t FTM_DRV_Init(uint32_t instance, const void *info, void *state);
void FTM_DRV_ClearStatusFlags(uint32_t instance, uint32_t flagMask);
uint32_t PINS_DRV_GetPortIntFlag(const PORT_Type *const base);
void PINS_DRV_ClearPinIntFlagCmd(PORT_Type *const base, uint32_t pin);
void PINS_DRV_WritePin(GPIO_Type *const base, uint32_t pin, uint32_t value);
void PINS_DRV_TogglePins(GPIO_Type *const base, uint32_t pins);
void OSIF_TimeDelay(uint32_t delay);
uint32_t OSIF_GetMilliseconds(void);
void CLOCK_SYS_Init_Default(void);
#define FTM_TIME_OVER_FLOW_FLAG 0x200U
#endif
