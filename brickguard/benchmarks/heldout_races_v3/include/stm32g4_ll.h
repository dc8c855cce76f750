/* STM32G4 low-layer (LL) drivers, trimmed: the device's IRQ numbers and the LL inline functions
 * with the bodies stm32g4xx_ll_usart.h / _ll_tim.h / _ll_exti.h / _ll_dma.h / _ll_adc.h give them. */
#ifndef STM32G4_LL_H
#define STM32G4_LL_H

#include <stdint.h>

typedef enum {
    SysTick_IRQn = -1,
    DMA1_Channel1_IRQn = 11,
    DMA1_Channel2_IRQn = 12,
    ADC1_2_IRQn = 18,
    TIM2_IRQn = 28,
    TIM3_IRQn = 29,
    USART1_IRQn = 37,
    USART2_IRQn = 38,
    EXTI15_10_IRQn = 40,
    TIM6_DAC_IRQn = 54,
    TIM7_IRQn = 55
} IRQn_Type;

#define __NVIC_PRIO_BITS 4U
#include "armv7m_core.h"

#define SET_BIT(REG, BIT) ((REG) |= (BIT))
#define CLEAR_BIT(REG, BIT) ((REG) &= ~(BIT))
#define READ_BIT(REG, BIT) ((REG) & (BIT))
#define WRITE_REG(REG, VAL) ((REG) = (VAL))

typedef struct {
    volatile uint32_t CR1, CR2, CR3, BRR, GTPR, RTOR, RQR, ISR, ICR, RDR, TDR, PRESC;
} USART_TypeDef;
typedef struct {
    volatile uint32_t CR1, CR2, SMCR, DIER, SR, EGR, CCMR1, CCMR2, CCER, CNT, PSC, ARR;
} TIM_TypeDef;
typedef struct {
    volatile uint32_t IMR1, EMR1, RTSR1, FTSR1, SWIER1, PR1;
} EXTI_TypeDef;
typedef struct {
    volatile uint32_t CCR, CNDTR, CPAR, CMAR, RESERVED;
} DMA_Channel_TypeDef;
typedef struct {
    volatile uint32_t ISR, IFCR;
    DMA_Channel_TypeDef CH[8];
} DMA_TypeDef;
typedef struct {
    volatile uint32_t ISR, IER, CR, CFGR, CFGR2, SMPR1, SMPR2, RESERVED1, TR1, TR2, TR3,
        RESERVED2, SQR1, SQR2, SQR3, SQR4, DR;
} ADC_TypeDef;

#define USART1 ((USART_TypeDef *)0x40013800UL)
#define USART2 ((USART_TypeDef *)0x40004400UL)
#define TIM2 ((TIM_TypeDef *)0x40000000UL)
#define TIM3 ((TIM_TypeDef *)0x40000400UL)
#define TIM6 ((TIM_TypeDef *)0x40001000UL)
#define TIM7 ((TIM_TypeDef *)0x40001400UL)
#define EXTI ((EXTI_TypeDef *)0x40010400UL)
#define DMA1 ((DMA_TypeDef *)0x40020000UL)
#define ADC1 ((ADC_TypeDef *)0x50000000UL)

#define USART_ISR_ORE (1U << 3)
#define USART_ISR_RXNE (1U << 5)
#define USART_ISR_TC (1U << 6)
#define USART_ISR_TXE (1U << 7)
#define USART_CR1_RXNEIE (1U << 5)
#define USART_CR1_TXEIE (1U << 7)
#define USART_ICR_ORECF (1U << 3)
#define TIM_SR_UIF (1U << 0)
#define TIM_DIER_UIE (1U << 0)
#define TIM_CR1_CEN (1U << 0)
#define DMA_CCR_EN (1U << 0)
#define DMA_CCR_TCIE (1U << 1)
#define DMA_CCR_HTIE (1U << 2)
#define DMA_ISR_TCIF1 (1U << 1)
#define DMA_ISR_HTIF1 (1U << 2)
#define ADC_CR_ADSTART (1U << 2)

#define LL_EXTI_LINE_13 (1U << 13)
#define LL_EXTI_LINE_14 (1U << 14)
#define LL_DMA_CHANNEL_1 0U

static inline uint32_t LL_USART_IsActiveFlag_RXNE(USART_TypeDef *USARTx)
{
    return (READ_BIT(USARTx->ISR, USART_ISR_RXNE) == USART_ISR_RXNE) ? 1UL : 0UL;
}
static inline uint32_t LL_USART_IsActiveFlag_TXE(USART_TypeDef *USARTx)
{
    return (READ_BIT(USARTx->ISR, USART_ISR_TXE) == USART_ISR_TXE) ? 1UL : 0UL;
}
static inline uint32_t LL_USART_IsActiveFlag_ORE(USART_TypeDef *USARTx)
{
    return (READ_BIT(USARTx->ISR, USART_ISR_ORE) == USART_ISR_ORE) ? 1UL : 0UL;
}
static inline void LL_USART_ClearFlag_ORE(USART_TypeDef *USARTx) { WRITE_REG(USARTx->ICR, USART_ICR_ORECF); }
static inline uint8_t LL_USART_ReceiveData8(USART_TypeDef *USARTx) { return (uint8_t)(READ_BIT(USARTx->RDR, 0xFFU)); }
static inline void LL_USART_TransmitData8(USART_TypeDef *USARTx, uint8_t Value) { USARTx->TDR = Value; }
static inline void LL_USART_EnableIT_RXNE(USART_TypeDef *USARTx) { SET_BIT(USARTx->CR1, USART_CR1_RXNEIE); }
static inline void LL_USART_EnableIT_TXE(USART_TypeDef *USARTx) { SET_BIT(USARTx->CR1, USART_CR1_TXEIE); }
static inline void LL_USART_DisableIT_TXE(USART_TypeDef *USARTx) { CLEAR_BIT(USARTx->CR1, USART_CR1_TXEIE); }

static inline uint32_t LL_TIM_IsActiveFlag_UPDATE(TIM_TypeDef *TIMx)
{
    return (READ_BIT(TIMx->SR, TIM_SR_UIF) == (TIM_SR_UIF)) ? 1UL : 0UL;
}
static inline void LL_TIM_ClearFlag_UPDATE(TIM_TypeDef *TIMx) { WRITE_REG(TIMx->SR, ~(TIM_SR_UIF)); }
static inline void LL_TIM_EnableIT_UPDATE(TIM_TypeDef *TIMx) { SET_BIT(TIMx->DIER, TIM_DIER_UIE); }
static inline void LL_TIM_EnableCounter(TIM_TypeDef *TIMx) { SET_BIT(TIMx->CR1, TIM_CR1_CEN); }
static inline uint32_t LL_TIM_GetCounter(TIM_TypeDef *TIMx) { return (uint32_t)(TIMx->CNT); }

static inline uint32_t LL_EXTI_IsActiveFlag_0_31(uint32_t ExtiLine)
{
    return ((READ_BIT(EXTI->PR1, ExtiLine) == (ExtiLine)) ? 1UL : 0UL);
}
static inline void LL_EXTI_ClearFlag_0_31(uint32_t ExtiLine) { WRITE_REG(EXTI->PR1, ExtiLine); }

static inline void LL_DMA_SetMemoryAddress(DMA_TypeDef *DMAx, uint32_t Channel, uint32_t MemoryAddress)
{
    WRITE_REG(DMAx->CH[Channel].CMAR, MemoryAddress);
}
static inline void LL_DMA_SetPeriphAddress(DMA_TypeDef *DMAx, uint32_t Channel, uint32_t PeriphAddress)
{
    WRITE_REG(DMAx->CH[Channel].CPAR, PeriphAddress);
}
static inline void LL_DMA_SetDataLength(DMA_TypeDef *DMAx, uint32_t Channel, uint32_t NbData)
{
    WRITE_REG(DMAx->CH[Channel].CNDTR, NbData);
}
static inline void LL_DMA_EnableChannel(DMA_TypeDef *DMAx, uint32_t Channel) { SET_BIT(DMAx->CH[Channel].CCR, DMA_CCR_EN); }
static inline void LL_DMA_DisableChannel(DMA_TypeDef *DMAx, uint32_t Channel) { CLEAR_BIT(DMAx->CH[Channel].CCR, DMA_CCR_EN); }
static inline void LL_DMA_EnableIT_TC(DMA_TypeDef *DMAx, uint32_t Channel) { SET_BIT(DMAx->CH[Channel].CCR, DMA_CCR_TCIE); }
static inline void LL_DMA_EnableIT_HT(DMA_TypeDef *DMAx, uint32_t Channel) { SET_BIT(DMAx->CH[Channel].CCR, DMA_CCR_HTIE); }
static inline uint32_t LL_DMA_IsActiveFlag_TC1(DMA_TypeDef *DMAx)
{
    return ((READ_BIT(DMAx->ISR, DMA_ISR_TCIF1) == (DMA_ISR_TCIF1)) ? 1UL : 0UL);
}
static inline uint32_t LL_DMA_IsActiveFlag_HT1(DMA_TypeDef *DMAx)
{
    return ((READ_BIT(DMAx->ISR, DMA_ISR_HTIF1) == (DMA_ISR_HTIF1)) ? 1UL : 0UL);
}
static inline void LL_DMA_ClearFlag_TC1(DMA_TypeDef *DMAx) { WRITE_REG(DMAx->IFCR, DMA_ISR_TCIF1); }
static inline void LL_DMA_ClearFlag_HT1(DMA_TypeDef *DMAx) { WRITE_REG(DMAx->IFCR, DMA_ISR_HTIF1); }

static inline void LL_ADC_REG_StartConversion(ADC_TypeDef *ADCx) { SET_BIT(ADCx->CR, ADC_CR_ADSTART); }
static inline uint32_t LL_ADC_DMA_GetRegAddr(ADC_TypeDef *ADCx) { return (uint32_t)(uintptr_t)&(ADCx->DR); }

/* Application-provided clock setup (SystemClock_Config in main.c of an LL project). */
void SystemClock_Config(void);

#endif
