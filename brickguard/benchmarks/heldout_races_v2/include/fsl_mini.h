/* NXP MCUXpresso-SDK-style names (i.MX RT-like device, fsl_lpuart / fsl_pit / fsl_gpio /
 * fsl_common), declared here so the programs parse without the SDK. Written for this corpus. */
#ifndef HO2_FSL_MINI_H
#define HO2_FSL_MINI_H

typedef enum {
    SysTick_IRQn = -1,
    LPUART1_IRQn = 20,
    LPUART2_IRQn = 21,
    ADC1_IRQn = 67,
    GPIO1_Combined_0_15_IRQn = 80,
    PIT_IRQn = 122
} IRQn_Type;

#define __NVIC_PRIO_BITS 4U
#include "cm_core.h"

typedef int32_t status_t;
#define kStatus_Success 0
#define kStatus_LPUART_RxIdle 1303
#define kStatus_LPUART_TxIdle 1302

typedef struct {
    volatile uint32_t STAT;
    volatile uint32_t CTRL;
    volatile uint32_t DATA;
} LPUART_Type;

typedef struct {
    volatile uint32_t TFLG;
    volatile uint32_t CVAL;
} PIT_Type;

typedef struct {
    volatile uint32_t DR;
    volatile uint32_t ISR;
    volatile uint32_t IMR;
} GPIO_Type;

typedef struct {
    volatile uint32_t HS;
    volatile uint32_t R[8];
} ADC_Type;

#define LPUART1 ((LPUART_Type *)0x40184000UL)
#define PIT ((PIT_Type *)0x40084000UL)
#define GPIO1 ((GPIO_Type *)0x401B8000UL)
#define ADC1 ((ADC_Type *)0x400C4000UL)

enum {
    kLPUART_RxDataRegFullFlag = 1U << 21,
    kLPUART_RxOverrunFlag = 1U << 19,
    kLPUART_RxDataRegFullInterruptEnable = 1U << 21
};
typedef enum { kPIT_Chnl_0 = 0, kPIT_Chnl_1 = 1 } pit_chnl_t;
#define kPIT_TimerFlag 1U

uint32_t LPUART_GetStatusFlags(LPUART_Type *base);
status_t LPUART_ClearStatusFlags(LPUART_Type *base, uint32_t mask);
uint8_t LPUART_ReadByte(LPUART_Type *base);
void LPUART_WriteByte(LPUART_Type *base, uint8_t data);
void LPUART_EnableInterrupts(LPUART_Type *base, uint32_t mask);

typedef struct _lpuart_handle lpuart_handle_t;
typedef void (*lpuart_transfer_callback_t)(LPUART_Type *base, lpuart_handle_t *handle,
                                           status_t status, void *userData);
struct _lpuart_handle {
    uint8_t *volatile rxData;
    volatile size_t rxDataSize;
    lpuart_transfer_callback_t callback;
    void *userData;
};
typedef struct {
    uint8_t *data;
    size_t dataSize;
} lpuart_transfer_t;
void LPUART_TransferCreateHandle(LPUART_Type *base, lpuart_handle_t *handle,
                                 lpuart_transfer_callback_t callback, void *userData);
status_t LPUART_TransferReceiveNonBlocking(LPUART_Type *base, lpuart_handle_t *handle,
                                           lpuart_transfer_t *xfer, size_t *receivedBytes);

void PIT_ClearStatusFlags(PIT_Type *base, pit_chnl_t channel, uint32_t mask);
void PIT_StartTimer(PIT_Type *base, pit_chnl_t channel);
uint32_t GPIO_PortGetInterruptFlags(GPIO_Type *base);
void GPIO_PortClearInterruptFlags(GPIO_Type *base, uint32_t mask);
uint32_t ADC_GetChannelConversionValue(ADC_Type *base, uint32_t group);

/* fsl_common.h: EnableIRQ/DisableIRQ wrap the NVIC; DisableGlobalIRQ returns the old PRIMASK
 * and masks every maskable interrupt, EnableGlobalIRQ(primask) restores it. */
status_t EnableIRQ(IRQn_Type irq);
status_t DisableIRQ(IRQn_Type irq);
uint32_t DisableGlobalIRQ(void);
void EnableGlobalIRQ(uint32_t primask);
#define SDK_ISR_EXIT_BARRIER __DSB()

void BOARD_InitHardware(void);
void app_handle_line(const uint8_t *line, uint32_t len);
void app_log_u32(uint32_t value);
void app_log_u64(uint64_t value);

#endif
