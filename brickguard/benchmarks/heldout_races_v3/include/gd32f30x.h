/* GigaDevice GD32F30x standard peripheral library, trimmed: IRQ numbers, gd32f30x_misc.h's
 * nvic_priority_group_set / nvic_irq_enable(irq, pre_priority, sub_priority) (4 priority bits
 * split into pre-emption and sub priority by the group), and usart/timer/dma/exti calls. Two
 * interrupts preempt each other only when their pre-emption priorities differ. */
#ifndef GD32F30X_H
#define GD32F30X_H

#include <stdbool.h>
#include <stdint.h>

typedef enum {
    SysTick_IRQn = -1,
    EXTI0_IRQn = 6,
    DMA0_Channel3_IRQn = 14,
    DMA0_Channel4_IRQn = 15,
    ADC0_1_IRQn = 18,
    TIMER1_IRQn = 28,
    TIMER2_IRQn = 29,
    USART0_IRQn = 37,
    EXTI10_15_IRQn = 40
} IRQn_Type;

#define __NVIC_PRIO_BITS 4U
#include "armv7m_core.h"

typedef enum { RESET = 0, SET = !RESET } FlagStatus;
typedef FlagStatus bit_status;

/* ---- gd32f30x_misc.h ---- */
#define NVIC_PRIGROUP_PRE0_SUB4 ((uint32_t)0x700U)
#define NVIC_PRIGROUP_PRE1_SUB3 ((uint32_t)0x600U)
#define NVIC_PRIGROUP_PRE2_SUB2 ((uint32_t)0x500U)
#define NVIC_PRIGROUP_PRE3_SUB1 ((uint32_t)0x400U)
#define NVIC_PRIGROUP_PRE4_SUB0 ((uint32_t)0x300U)
void nvic_priority_group_set(uint32_t nvic_prigroup);
void nvic_irq_enable(uint8_t nvic_irq, uint8_t nvic_irq_pre_priority, uint8_t nvic_irq_sub_priority);
void nvic_irq_disable(uint8_t nvic_irq);

/* ---- gd32f30x_usart.h ---- */
#define USART0 (0x40013800U)
#define USART_INT_RBNE 0x0C000005U
#define USART_INT_TBE 0x0C000007U
#define USART_INT_FLAG_RBNE 0x0C000505U
#define USART_INT_FLAG_TBE 0x0C000707U
#define USART_INT_FLAG_RBNE_ORERR 0x0C000305U
#define USART_DENT_ENABLE 0x80U
void usart_interrupt_enable(uint32_t usart_periph, uint32_t interrupt);
void usart_interrupt_disable(uint32_t usart_periph, uint32_t interrupt);
FlagStatus usart_interrupt_flag_get(uint32_t usart_periph, uint32_t int_flag);
void usart_interrupt_flag_clear(uint32_t usart_periph, uint32_t int_flag);
uint16_t usart_data_receive(uint32_t usart_periph);
void usart_data_transmit(uint32_t usart_periph, uint32_t data);
void usart_dma_transmit_config(uint32_t usart_periph, uint32_t dmacmd);

/* ---- gd32f30x_timer.h ---- */
#define TIMER1 (0x40000000U)
#define TIMER2 (0x40000400U)
#define TIMER_INT_UP 0x01U
#define TIMER_INT_FLAG_UP 0x01U
void timer_interrupt_enable(uint32_t timer_periph, uint32_t interrupt);
FlagStatus timer_interrupt_flag_get(uint32_t timer_periph, uint32_t interrupt);
void timer_interrupt_flag_clear(uint32_t timer_periph, uint32_t interrupt);
void timer_enable(uint32_t timer_periph);
uint32_t timer_counter_read(uint32_t timer_periph);

/* ---- gd32f30x_dma.h ---- */
#define DMA0 (0x40020000U)
typedef enum { DMA_CH0 = 0, DMA_CH1, DMA_CH2, DMA_CH3, DMA_CH4, DMA_CH5, DMA_CH6 } dma_channel_enum;
#define DMA_INT_FTF 0x02U
#define DMA_INT_FLAG_FTF 0x02U
#define DMA_INT_FLAG_G 0x01U
void dma_channel_enable(uint32_t dma_periph, dma_channel_enum channelx);
void dma_channel_disable(uint32_t dma_periph, dma_channel_enum channelx);
void dma_memory_address_config(uint32_t dma_periph, dma_channel_enum channelx, uint32_t address);
void dma_transfer_number_config(uint32_t dma_periph, dma_channel_enum channelx, uint32_t number);
void dma_interrupt_enable(uint32_t dma_periph, dma_channel_enum channelx, uint32_t source);
FlagStatus dma_interrupt_flag_get(uint32_t dma_periph, dma_channel_enum channelx, uint32_t flag);
void dma_interrupt_flag_clear(uint32_t dma_periph, dma_channel_enum channelx, uint32_t flag);

/* ---- gd32f30x_exti.h / gpio ---- */
#define EXTI_12 (1U << 12)
FlagStatus exti_interrupt_flag_get(uint32_t linex);
void exti_interrupt_flag_clear(uint32_t linex);
#define GPIOB (0x40010C00U)
#define GPIO_PIN_12 (1U << 12)
FlagStatus gpio_input_bit_get(uint32_t gpio_periph, uint32_t pin);
void gpio_bit_set(uint32_t gpio_periph, uint32_t pin);
void gpio_bit_reset(uint32_t gpio_periph, uint32_t pin);

/* ---- systick.h of the GD32 demo projects ---- */
void systick_config(void);
void delay_1ms(uint32_t count);

#endif
