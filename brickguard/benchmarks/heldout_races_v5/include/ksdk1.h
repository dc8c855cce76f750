/* Freescale Kinetis SDK 1.3 on a K22F (Cortex-M4, 4 priority bits), the parts of
 * fsl_os_abstraction.h (bare-metal OSA), fsl_interrupt_manager.h, fsl_pit_driver.h,
 * fsl_uart_driver.h, fsl_adc16_driver.h, fsl_ftm_driver.h, fsl_gpio_driver.h this corpus uses.
 * - Inline, as in fsl_interrupt_manager.h: INT_SYS_EnableIRQ/INT_SYS_DisableIRQ (NVIC_EnableIRQ /
 *   NVIC_DisableIRQ) and INT_SYS_EnableIRQGlobal/DisableIRQGlobal (__enable_irq/__disable_irq).
 * - Body-less, as in the SDK's libksdk_platform.a: OSA_EnterCritical/OSA_ExitCritical (bare-metal
 *   OSA: kCriticalDisableInt disables all interrupts with PRIMASK; kCriticalLockSched only stops
 *   OSA task switching) and every *_DRV_* call.
 * - UART_DRV_InstallRxCallback callbacks run in the UARTn_RX_TX interrupt (the driver's ISR). */
#ifndef KSDK1_H
#define KSDK1_H
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
typedef enum IRQn {
    PendSV_IRQn = -2,
    SysTick_IRQn = -1,
    UART1_RX_TX_IRQn = 33,
    ADC0_IRQn = 39,
    FTM0_IRQn = 42,
    PIT0_IRQn = 48,
    PIT1_IRQn = 49,
    PORTC_IRQn = 61,
} IRQn_Type;
#define __NVIC_PRIO_BITS 4U
#define __CORTEX_M 4U
#include "cm_core.h"

static inline void INT_SYS_EnableIRQ(IRQn_Type irqNumber) { NVIC_EnableIRQ(irqNumber); }
static inline void INT_SYS_DisableIRQ(IRQn_Type irqNumber) { NVIC_DisableIRQ(irqNumber); }
static inline void INT_SYS_EnableIRQGlobal(void) { __enable_irq(); }
static inline void INT_SYS_DisableIRQGlobal(void) { __disable_irq(); }

typedef enum { kCriticalLockSched = 0, kCriticalDisableInt = 1 } osa_critical_section_mode_t;
void OSA_EnterCritical(osa_critical_section_mode_t mode);
void OSA_ExitCritical(osa_critical_section_mode_t mode);
void OSA_TimeDelay(uint32_t delay);
void OSA_Init(void);

typedef struct {
    bool isInterruptEnabled;
    uint32_t periodUs;
} pit_user_config_t;
void PIT_DRV_Init(uint32_t instance, bool isRunInDebug);
void PIT_DRV_InitChannel(uint32_t instance, uint32_t channel, const pit_user_config_t *config);
void PIT_DRV_StartTimer(uint32_t instance, uint32_t channel);
void PIT_DRV_ClearIntFlag(uint32_t instance, uint32_t channel);
uint32_t PIT_DRV_ReadTimerUs(uint32_t instance, uint32_t channel);

typedef void (*uart_rx_callback_t)(uint32_t instance, void *uartState);
typedef struct {
    uint8_t *rxBuff;
    uint32_t rxSize;
} uart_state_t;
typedef struct {
    uint32_t baudRate;
} uart_user_config_t;
typedef enum { kStatus_UART_Success = 0, kStatus_UART_Fail = 1 } uart_status_t;
uart_status_t UART_DRV_Init(uint32_t instance, uart_state_t *uartStatePtr, const uart_user_config_t *cfg);
uart_rx_callback_t UART_DRV_InstallRxCallback(uint32_t instance, uart_rx_callback_t function,
                                              uint8_t *rxBuff, void *callbackParam, bool alwaysEnableRxIrq);
uart_status_t UART_DRV_SendDataBlocking(uint32_t instance, const uint8_t *txBuff, uint32_t txSize,
                                        uint32_t timeout);

uint16_t ADC16_DRV_GetConvValueRAW(uint32_t instance, uint32_t chnGroup);
void ADC16_DRV_ConfigConvChn(uint32_t instance, uint32_t chnGroup, uint32_t chn, bool irq);
void FTM_DRV_PwmSetDuty(uint32_t instance, uint8_t channel, uint16_t dutyPermille);
void FTM_DRV_PwmStop(uint32_t instance, uint8_t channel);
uint32_t GPIO_DRV_ReadPinInput(uint32_t pinName);
void GPIO_DRV_ClearPinIntFlag(uint32_t pinName);
void GPIO_DRV_WritePinOutput(uint32_t pinName, uint32_t output);
#define GPIO_MAKE_PIN(port, pin) (((port) << 8) | (pin))
#define PORTC_IDX 2U
#define BOARD_SW2 GPIO_MAKE_PIN(PORTC_IDX, 6U)
#define BOARD_LED_RED GPIO_MAKE_PIN(1U, 22U)
void hardware_init(void);
void dbg_printf(const char *fmt, ...);
#endif
