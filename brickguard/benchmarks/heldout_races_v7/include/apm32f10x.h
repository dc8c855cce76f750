/* Geehy APM32F10x Standard Peripheral Library (APM32F10x_SDK 1.x) subset for an APM32F103CB
 * (Cortex-M3), written for this corpus with the library's names. __NVIC_PRIO_BITS is 4.
 * Inline (bodies here): the CMSIS-Core intrinsics (cmsis_core.h, including __LDREXW/__STREXW).
 * Body-less library functions, declared only, with their documented effect:
 *   NVIC_ConfigPriorityGroup(NVIC_PRIORITY_GROUP_n): splits the four priority bits: GROUP_0 = 0
 *     pre-emption bits / 4 sub-priority bits, GROUP_1 = 1/3, GROUP_2 = 2/2, GROUP_3 = 3/1,
 *     GROUP_4 = 4/0. Only a lower pre-emption priority value preempts; sub-priority only orders
 *     pending interrupts of equal pre-emption priority.
 *   NVIC_EnableIRQRequest(irq, preemptionPriority, subPriority): sets the interrupt's priority and
 *     enables it. NVIC_DisableIRQRequest(irq): disables it.
 *   USART_Config / USART_Enable / USART_EnableInterrupt / USART_DisableInterrupt,
 *     USART_ReadIntFlag (true when the event is pending), USART_RxData (reading clears RXBNE),
 *     USART_TxData, USART_EnableDMA.
 *   TMR_ConfigTimeBase / TMR_Enable / TMR_EnableInterrupt / TMR_ReadIntFlag / TMR_ClearIntFlag,
 *     TMR_ReadCounter, TMR_ReadCaputer1 (sic, the library's spelling: capture register 1).
 *   EINT_Config / EINT_ReadIntFlag / EINT_ClearIntFlag: external interrupt lines.
 *   DMA_Config(ch, &cfg) / DMA_Enable(ch) / DMA_Disable(ch): once enabled the channel writes its
 *     memory buffer with no CPU; in DMA_MODE_NORMAL it stops after bufferSize items, in
 *     DMA_MODE_CIRCULAR it wraps and keeps writing. DMA_ReadDataNumber(ch): items still to go.
 *     DMA_ReadStatusFlag / DMA_ClearStatusFlag(DMA1_FLAG_TCn): transfer-complete flag.
 *     DMA_EnableInterrupt(ch, DMA_INT_TC).
 *   ADC_Config / ADC_EnableDMA / ADC_Enable / ADC_EnableSoftwareStartConv.
 *   GPIO_Config / GPIO_SetBit / GPIO_ResetBit / GPIO_ReadInputBit.
 *   Delay_ms(ms): the BSP's busy-wait. */
#ifndef APM32F10X_H
#define APM32F10X_H
#define __NVIC_PRIO_BITS 4U
#include "cmsis_core.h"
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

enum { EINT0_IRQn = 6, EINT1_IRQn = 7, DMA1_Channel1_IRQn = 11, DMA1_Channel5_IRQn = 15,
       TMR2_IRQn = 28, TMR3_IRQn = 29, TMR4_IRQn = 30, USART1_IRQn = 37, USART2_IRQn = 38 };
typedef enum { NVIC_PRIORITY_GROUP_0 = 0x700, NVIC_PRIORITY_GROUP_1 = 0x600, NVIC_PRIORITY_GROUP_2 = 0x500,
               NVIC_PRIORITY_GROUP_3 = 0x400, NVIC_PRIORITY_GROUP_4 = 0x300 } NVIC_PRIORITY_GROUP_T;
typedef struct { volatile uint32_t STS, DATA, BR, CTRL1, CTRL2, CTRL3; } USART_T;
typedef struct { volatile uint32_t CTRL1, CTRL2, SMCTRL, DIEN, STS, CEG, CCM1, CCM2, CCEN, CNT, PSC, AUTORLD, REPCNT, CC1, CC2; } TMR_T;
typedef struct { volatile uint32_t CHCFG, CHNDATA, CHPADDR, CHMADDR; } DMA_Channel_T;
typedef struct { volatile uint32_t STS, CTRL1, CTRL2, r[16], REGDATA; } ADC_T;
typedef struct { volatile uint32_t CFGLOW, CFGHIG, IDATA, ODATA, BSC, BC; } GPIO_T;
#define USART1 ((USART_T *)0x40013800UL)
#define USART2 ((USART_T *)0x40004400UL)
#define TMR2 ((TMR_T *)0x40000000UL)
#define TMR3 ((TMR_T *)0x40000400UL)
#define TMR4 ((TMR_T *)0x40000800UL)
#define DMA1_Channel1 ((DMA_Channel_T *)0x40020008UL)
#define DMA1_Channel5 ((DMA_Channel_T *)0x40020058UL)
#define ADC1 ((ADC_T *)0x40012400UL)
#define GPIOA ((GPIO_T *)0x40010800UL)
#define GPIOB ((GPIO_T *)0x40010C00UL)
#define GPIOC ((GPIO_T *)0x40011000UL)
#define GPIO_PIN_0 0x0001U
#define GPIO_PIN_5 0x0020U
#define GPIO_PIN_13 0x2000U
typedef enum { USART_INT_RXBNE = 0x20, USART_INT_TXBE = 0x80, USART_INT_IDLE = 0x10 } USART_INT_T;
typedef enum { TMR_INT_UPDATE = 0x01, TMR_INT_CC1 = 0x02 } TMR_INT_T;
typedef enum { EINT_LINE_0 = 0x1, EINT_LINE_1 = 0x2 } EINT_LINE_T;
typedef enum { DMA1_FLAG_TC1 = 0x2, DMA1_FLAG_HT1 = 0x4, DMA1_FLAG_TC5 = 0x20000 } DMA_FLAG_T;
typedef enum { DMA_INT_TC = 0x2, DMA_INT_HT = 0x4 } DMA_INT_T;
typedef enum { DMA_MODE_NORMAL = 0, DMA_MODE_CIRCULAR = 1 } DMA_LOOP_MODE_T;
typedef struct {
    uint32_t peripheralBaseAddr, memoryBaseAddr;
    uint32_t dir, bufferSize, peripheralInc, memoryInc, peripheralDataSize, memoryDataSize;
    DMA_LOOP_MODE_T loopMode;
    uint32_t priority, M2M;
} DMA_Config_T;
#define DMA_DIR_PERIPHERAL_SRC 0U
#define DMA_PERIPHERAL_INC_DISABLE 0U
#define DMA_MEMORY_INC_ENABLE 0x80U
#define DMA_PERIPHERAL_DATA_SIZE_BYTE 0U
#define DMA_PERIPHERAL_DATA_SIZE_HALFWORD 0x100U
#define DMA_MEMORY_DATA_SIZE_BYTE 0U
#define DMA_MEMORY_DATA_SIZE_HALFWORD 0x400U
#define DMA_PRIORITY_HIGH 0x2000U
#define DMA_M2MEN_DISABLE 0U

void NVIC_ConfigPriorityGroup(NVIC_PRIORITY_GROUP_T priorityGroup);
void NVIC_EnableIRQRequest(IRQn_Type irq, uint8_t preemptionPriority, uint8_t subPriority);
void NVIC_DisableIRQRequest(IRQn_Type irq);
void USART_EnableInterrupt(USART_T *usart, USART_INT_T interrupt);
void USART_DisableInterrupt(USART_T *usart, USART_INT_T interrupt);
uint8_t USART_ReadIntFlag(USART_T *usart, USART_INT_T flag);
uint16_t USART_RxData(USART_T *usart);
void USART_TxData(USART_T *usart, uint16_t data);
void USART_EnableDMA(USART_T *usart, uint32_t dmaReq);
void USART_Enable(USART_T *usart);
void TMR_Enable(TMR_T *tmr);
void TMR_EnableInterrupt(TMR_T *tmr, uint16_t interrupt);
uint16_t TMR_ReadIntFlag(TMR_T *tmr, TMR_INT_T flag);
void TMR_ClearIntFlag(TMR_T *tmr, uint16_t flag);
uint16_t TMR_ReadCounter(TMR_T *tmr);
uint16_t TMR_ReadCaputer1(TMR_T *tmr);
uint8_t EINT_ReadIntFlag(EINT_LINE_T line);
void EINT_ClearIntFlag(uint32_t line);
void DMA_Config(DMA_Channel_T *channel, DMA_Config_T *dmaConfig);
void DMA_Enable(DMA_Channel_T *channel);
void DMA_Disable(DMA_Channel_T *channel);
uint16_t DMA_ReadDataNumber(DMA_Channel_T *channel);
uint8_t DMA_ReadStatusFlag(DMA_FLAG_T flag);
void DMA_ClearStatusFlag(uint32_t flag);
void DMA_EnableInterrupt(DMA_Channel_T *channel, uint32_t interrupt);
void ADC_EnableDMA(ADC_T *adc);
void ADC_Enable(ADC_T *adc);
void ADC_EnableSoftwareStartConv(ADC_T *adc);
void GPIO_SetBit(GPIO_T *port, uint16_t pin);
void GPIO_ResetBit(GPIO_T *port, uint16_t pin);
uint8_t GPIO_ReadInputBit(GPIO_T *port, uint16_t pin);
void APM_BOARD_Init(void);
void Delay_ms(uint32_t ms);
int printf(const char *fmt, ...);
#define USART_DMA_RX 0x40U
#endif
