/* Minimal Cortex-M board header for the held-out race corpus: the CMSIS-style names the
 * programs use, declared here so every file parses on its own. Written for this corpus. */
#ifndef HELDOUT_BOARD_H
#define HELDOUT_BOARD_H

#include <stdint.h>

typedef enum {
    SysTick_IRQn = -1,
    EXTI0_IRQn = 6,
    DMA1_Stream5_IRQn = 16,
    ADC_IRQn = 18,
    TIM2_IRQn = 28,
    TIM3_IRQn = 29,
    I2C1_EV_IRQn = 31,
    SPI1_IRQn = 35,
    USART1_IRQn = 37,
    USART2_IRQn = 38
} IRQn_Type;

#define __NVIC_PRIO_BITS 4U

void __disable_irq(void);
void __enable_irq(void);
uint32_t __get_PRIMASK(void);
void __set_PRIMASK(uint32_t primask);
uint32_t __get_BASEPRI(void);
void __set_BASEPRI(uint32_t basepri);
void __WFI(void);
void __DSB(void);

void NVIC_EnableIRQ(IRQn_Type irq);
void NVIC_DisableIRQ(IRQn_Type irq);
void NVIC_SetPriority(IRQn_Type irq, uint32_t priority);
uint32_t SysTick_Config(uint32_t ticks);

typedef struct {
    volatile uint32_t SR;
    volatile uint32_t DR;
    volatile uint32_t BRR;
    volatile uint32_t CR1;
} USART_TypeDef;

typedef struct {
    volatile uint32_t SR;
    volatile uint32_t CR1;
    volatile uint32_t DR;
} ADC_TypeDef;

typedef struct {
    volatile uint32_t CR1;
    volatile uint32_t SR;
    volatile uint32_t CNT;
    volatile uint32_t CCR1;
} TIM_TypeDef;

#define USART1 ((USART_TypeDef *)0x40011000UL)
#define USART2 ((USART_TypeDef *)0x40004400UL)
#define ADC1 ((ADC_TypeDef *)0x40012000UL)
#define TIM2 ((TIM_TypeDef *)0x40000000UL)
#define TIM3 ((TIM_TypeDef *)0x40000400UL)

#define USART_SR_RXNE 0x20U
#define USART_SR_TXE 0x80U
#define USART_CR1_RXNEIE 0x20U
#define USART_CR1_UE 0x2000U
#define TIM_SR_UIF 0x1U
#define ADC_SR_EOC 0x2U

uint32_t periph_read(uint32_t addr);
void board_clock_init(void);
void led_toggle(void);
void process_byte(uint8_t byte);

#endif
