/* libopencm3 on an STM32F407 (Cortex-M4, 4 priority bits), the parts of
 * <libopencm3/cm3/cortex.h>, <libopencm3/cm3/nvic.h>, <libopencm3/stm32/{usart,timer,exti,dma,adc,gpio}.h>
 * this corpus uses.
 * - Inline, as in libopencm3: cm_enable_interrupts/cm_disable_interrupts/cm_mask_interrupts and the
 *   CM_ATOMIC_BLOCK() macro of cortex.h (PRIMASK, restored by a cleanup attribute).
 * - Body-less, as a user's project sees libopencm3.a: nvic_*, usart_*, timer_*, exti_*, dma_*, adc_*,
 *   gpio_*. nvic_set_priority(irqn, prio) takes the 8-bit register value (0x00 most urgent; only the
 *   top 4 bits exist). Handlers are the weak vector names: usart2_isr, tim2_isr, exti0_isr, ... */
#ifndef LOCM3_H
#define LOCM3_H
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

static inline void cm_enable_interrupts(void) { __asm__ volatile("CPSIE I\n" : : : "memory"); }
static inline void cm_disable_interrupts(void) { __asm__ volatile("CPSID I\n" : : : "memory"); }
static inline uint32_t cm_mask_interrupts(uint32_t mask)
{
    register uint32_t old;
    __asm__ __volatile__("MRS %0, PRIMASK" : "=r"(old));
    __asm__ __volatile__("" : : : "memory");
    __asm__ __volatile__("MSR PRIMASK, %0" : : "r"(mask));
    return old;
}
static inline uint32_t __cm_atomic_set(uint32_t *val) { return cm_mask_interrupts(*val); }
#define __CM_SAVER(state) \
    __val = (state), __save __attribute__((__cleanup__(__cm_atomic_set))) = __cm_atomic_set(&__val)
#define CM_ATOMIC_BLOCK() for (uint32_t __CM_SAVER(true), __my = true; __my; __my = false)

#define NVIC_EXTI0_IRQ 6
#define NVIC_ADC_IRQ 18
#define NVIC_TIM2_IRQ 28
#define NVIC_TIM3_IRQ 29
#define NVIC_USART2_IRQ 38
#define NVIC_DMA2_STREAM0_IRQ 56
void nvic_enable_irq(uint8_t irqn);
void nvic_disable_irq(uint8_t irqn);
void nvic_set_priority(uint8_t irqn, uint8_t priority);

#define USART2 0x40004400U
#define USART_SR_RXNE (1U << 5)
#define USART_SR_ORE (1U << 3)
#define USART_SR(usart) (*(volatile uint32_t *)((usart) + 0x00U))
#define USART_DR(usart) (*(volatile uint32_t *)((usart) + 0x04U))
uint16_t usart_recv(uint32_t usart);
void usart_send_blocking(uint32_t usart, uint16_t data);
void usart_enable_rx_interrupt(uint32_t usart);
void usart_enable(uint32_t usart);

#define TIM2 0x40000000U
#define TIM3 0x40000400U
#define TIM_SR_UIF (1U << 0)
#define TIM_DIER_UIE (1U << 0)
void timer_clear_flag(uint32_t timer_peripheral, uint32_t flag);
bool timer_get_flag(uint32_t timer_peripheral, uint32_t flag);
void timer_enable_irq(uint32_t timer_peripheral, uint32_t irq);
void timer_set_period(uint32_t timer_peripheral, uint32_t period);
void timer_enable_counter(uint32_t timer_peripheral);
uint32_t timer_get_counter(uint32_t timer_peripheral);

#define EXTI0 (1U << 0)
void exti_reset_request(uint32_t extis);
void exti_enable_request(uint32_t extis);

#define DMA2 0x40026400U
#define DMA_STREAM0 0
#define DMA_TCIF (1U << 5)
void dma_clear_interrupt_flags(uint32_t dma, uint8_t stream, uint32_t interrupts);
bool dma_get_interrupt_flag(uint32_t dma, uint8_t stream, uint32_t interrupt);
void dma_set_memory_address(uint32_t dma, uint8_t stream, uint32_t address);
void dma_set_number_of_data(uint32_t dma, uint8_t stream, uint16_t number);
void dma_enable_stream(uint32_t dma, uint8_t stream);
void dma_disable_stream(uint32_t dma, uint8_t stream);
void dma_enable_transfer_complete_interrupt(uint32_t dma, uint8_t stream);

#define ADC1 0x40012000U
void adc_start_conversion_regular(uint32_t adc);
void adc_set_dma_continue(uint32_t adc);

#define GPIOA 0x40020000U
#define GPIO0 (1U << 0)
#define GPIO5 (1U << 5)
uint16_t gpio_get(uint32_t gpioport, uint16_t gpios);
void gpio_toggle(uint32_t gpioport, uint16_t gpios);
void gpio_set(uint32_t gpioport, uint16_t gpios);
void gpio_clear(uint32_t gpioport, uint16_t gpios);

/* board code of these programs (not libopencm3): declared, defined elsewhere */
void clock_setup(void);
void console_printf(const char *fmt, ...);
#endif
