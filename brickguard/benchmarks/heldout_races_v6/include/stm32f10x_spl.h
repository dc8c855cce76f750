/* STM32F10x Standard Peripheral Library (SPL 3.5) subset on an STM32F103 (Cortex-M3), written for
 * this corpus with the SPL's names. __NVIC_PRIO_BITS is 4.
 * Inline (bodies here): the CMSIS-Core intrinsics and NVIC_* functions (cmsis_core.h).
 * Body-less library functions (misc.c, stm32f10x_*.c), declared only, with their documented effect:
 *   NVIC_PriorityGroupConfig(g): writes AIRCR.PRIGROUP. NVIC_PriorityGroup_2 = 2 bits of
 *     pre-emption priority (0-3) and 2 bits of sub-priority (0-3); only the pre-emption priority
 *     decides whether one handler can interrupt another; equal pre-emption priorities never
 *     preempt each other, whatever their sub-priorities.
 *   NVIC_Init(&init): writes the channel's priority byte from PreemptionPriority/SubPriority under
 *     the current grouping, and sets (ENABLE) or clears (DISABLE) its enable bit.
 *   DMA_Init / DMA_Cmd / DMA_SetCurrDataCounter / DMA_ITConfig: program one DMA channel.
 *     DMA_Mode_Circular: the channel restarts at the buffer's start by itself after the last
 *     transfer and keeps writing. DMA_Mode_Normal: the channel stops after CNDTR transfers until
 *     it is disabled, given a new counter and enabled again.
 *   USART_* / TIM_* / EXTI_* / ADC_*: register access to the peripheral, no interrupt masking. */
#ifndef STM32F10X_SPL_H
#define STM32F10X_SPL_H
#define __NVIC_PRIO_BITS 4U
#include "cmsis_core.h"
#include <stdint.h>

typedef enum { DISABLE = 0, ENABLE = 1 } FunctionalState;
typedef enum { RESET = 0, SET = 1 } ITStatus;
enum { EXTI0_IRQn = 6, DMA1_Channel1_IRQn = 11, ADC1_2_IRQn = 18, TIM2_IRQn = 28, TIM3_IRQn = 29,
       USART1_IRQn = 37, USART2_IRQn = 38 };
typedef struct { volatile uint32_t SR, DR, BRR, CR1, CR2, CR3, GTPR; } USART_TypeDef;
typedef struct { volatile uint32_t CR1, CR2, SMCR, DIER, SR, EGR, CCMR1, CCMR2, CCER, CNT, PSC, ARR; } TIM_TypeDef;
typedef struct { volatile uint32_t CCR, CNDTR, CPAR, CMAR; } DMA_Channel_TypeDef;
typedef struct { volatile uint32_t SR, CR1, CR2; uint32_t r[16]; volatile uint32_t DR; } ADC_TypeDef;
#define USART1 ((USART_TypeDef *)0x40013800UL)
#define USART2 ((USART_TypeDef *)0x40004400UL)
#define TIM2 ((TIM_TypeDef *)0x40000000UL)
#define TIM3 ((TIM_TypeDef *)0x40000400UL)
#define DMA1_Channel1 ((DMA_Channel_TypeDef *)0x40020008UL)
#define ADC1 ((ADC_TypeDef *)0x40012400UL)

typedef struct {
    uint8_t NVIC_IRQChannel;
    uint8_t NVIC_IRQChannelPreemptionPriority;
    uint8_t NVIC_IRQChannelSubPriority;
    FunctionalState NVIC_IRQChannelCmd;
} NVIC_InitTypeDef;
#define NVIC_PriorityGroup_0 ((uint32_t)0x700)
#define NVIC_PriorityGroup_1 ((uint32_t)0x600)
#define NVIC_PriorityGroup_2 ((uint32_t)0x500)
#define NVIC_PriorityGroup_3 ((uint32_t)0x400)
#define NVIC_PriorityGroup_4 ((uint32_t)0x300)
void NVIC_PriorityGroupConfig(uint32_t group);
void NVIC_Init(NVIC_InitTypeDef *init);

typedef struct {
    uint32_t DMA_PeripheralBaseAddr, DMA_MemoryBaseAddr, DMA_DIR, DMA_BufferSize;
    uint32_t DMA_PeripheralInc, DMA_MemoryInc, DMA_PeripheralDataSize, DMA_MemoryDataSize;
    uint32_t DMA_Mode, DMA_Priority, DMA_M2M;
} DMA_InitTypeDef;
#define DMA_DIR_PeripheralSRC 0x0000U
#define DMA_PeripheralInc_Disable 0x0000U
#define DMA_MemoryInc_Enable 0x0080U
#define DMA_PeripheralDataSize_HalfWord 0x0100U
#define DMA_MemoryDataSize_HalfWord 0x0400U
#define DMA_Mode_Normal 0x0000U
#define DMA_Mode_Circular 0x0020U
#define DMA_Priority_High 0x2000U
#define DMA_M2M_Disable 0x0000U
#define DMA_IT_TC 0x0002U
#define DMA1_IT_TC1 0x00000002U
void DMA_Init(DMA_Channel_TypeDef *ch, DMA_InitTypeDef *init);
void DMA_Cmd(DMA_Channel_TypeDef *ch, FunctionalState state);
void DMA_SetCurrDataCounter(DMA_Channel_TypeDef *ch, uint16_t count);
void DMA_ITConfig(DMA_Channel_TypeDef *ch, uint32_t it, FunctionalState state);
ITStatus DMA_GetITStatus(uint32_t it);
void DMA_ClearITPendingBit(uint32_t it);

#define USART_IT_RXNE 0x0525U
ITStatus USART_GetITStatus(USART_TypeDef *u, uint16_t it);
uint16_t USART_ReceiveData(USART_TypeDef *u);
void USART_ITConfig(USART_TypeDef *u, uint16_t it, FunctionalState state);
#define TIM_IT_Update 0x0001U
ITStatus TIM_GetITStatus(TIM_TypeDef *t, uint16_t it);
void TIM_ClearITPendingBit(TIM_TypeDef *t, uint16_t it);
void TIM_ITConfig(TIM_TypeDef *t, uint16_t it, FunctionalState state);
void TIM_Cmd(TIM_TypeDef *t, FunctionalState state);
#define EXTI_Line0 0x00001U
void EXTI_ClearITPendingBit(uint32_t line);
void ADC_DMACmd(ADC_TypeDef *a, FunctionalState state);
void ADC_SoftwareStartConvCmd(ADC_TypeDef *a, FunctionalState state);
void board_init(void);              /* clocks and pins; enables no interrupt */
void report_u32(const char *what, uint32_t v); /* blocking USART2 print, ~1 ms */
#endif
