/* Atmel/Microchip ASF 3 (Advanced Software Framework 3) subset on a SAM3X8E (Cortex-M3), written
 * for this corpus with ASF3's names. __NVIC_PRIO_BITS is 4.
 * Inline (bodies here): the CMSIS-Core intrinsics (cmsis_core.h) and ASF3's interrupt.h /
 *   interrupt_sam_nvic.h: cpu_irq_save() (reads PRIMASK, disables every interrupt, returns the old
 *   state), cpu_irq_restore(flags), cpu_irq_enable()/cpu_irq_disable().
 * Body-less driver functions, declared only, with their documented effect:
 *   pio_handler_set(pio, id, mask, attr, handler): registers handler for those pins; ASF's
 *     PIOA_Handler (the PIO controller's interrupt) calls handler(id, mask), so it runs in that
 *     interrupt. pio_enable_interrupt(pio, mask) enables the pins' interrupt.
 *   tc_*: Timer Counter register access; tc_get_status() reads (and so clears) TC_SR.
 *   uart_*: UART register access. */
#ifndef ASF3_SAM3X_H
#define ASF3_SAM3X_H
#define __NVIC_PRIO_BITS 4U
#include "cmsis_core.h"
#include <stdint.h>
#include <stdbool.h>
enum { UART_IRQn = 8, PIOA_IRQn = 11, PIOB_IRQn = 12, TC0_IRQn = 27, TC1_IRQn = 28 };
#define ID_PIOA 11U
#define ID_PIOB 12U
#define ID_TC0 27U
typedef struct { volatile uint32_t PIO_PER, PIO_ISR; } Pio;
typedef struct { volatile uint32_t TC_CCR, TC_CMR, TC_CV, TC_RA, TC_RB, TC_RC, TC_SR; } TcChannel;
typedef struct { TcChannel TC_CHANNEL[3]; } Tc;
typedef struct { volatile uint32_t UART_CR, UART_SR, UART_RHR, UART_THR; } Uart;
#define PIOA ((Pio *)0x400E0E00UL)
#define PIOB ((Pio *)0x400E1000UL)
#define TC0 ((Tc *)0x40080000UL)
#define UART ((Uart *)0x400E0800UL)
#define PIO_PA15 (1UL << 15)
#define PIO_PB27 (1UL << 27)
#define PIO_IT_FALL_EDGE 0x70U
#define PIO_IT_RISE_EDGE 0x50U
#define TC_SR_LDRAS (1UL << 5)
#define TC_SR_LDRBS (1UL << 6)
#define TC_SR_CPCS (1UL << 4)
#define UART_SR_RXRDY 1UL
typedef uint32_t irqflags_t;
static inline void cpu_irq_enable(void) { __DMB(); __enable_irq(); }
static inline void cpu_irq_disable(void) { __disable_irq(); __DMB(); }
static inline irqflags_t cpu_irq_save(void)
{
    irqflags_t flags = __get_PRIMASK() ? 0U : 1U;   /* 1: interrupts were enabled */
    cpu_irq_disable();
    return flags;
}
static inline void cpu_irq_restore(irqflags_t flags)
{
    if (flags) {
        cpu_irq_enable();
    }
}
uint32_t pio_handler_set(Pio *pio, uint32_t id, uint32_t mask, uint32_t attr, void (*handler)(uint32_t, uint32_t));
void pio_enable_interrupt(Pio *pio, uint32_t mask);
uint32_t pio_get(Pio *pio, uint32_t type, uint32_t mask);
void pmc_enable_periph_clk(uint32_t id);
void tc_init(Tc *tc, uint32_t ch, uint32_t mode);
void tc_start(Tc *tc, uint32_t ch);
uint32_t tc_get_status(Tc *tc, uint32_t ch);
uint32_t tc_read_ra(Tc *tc, uint32_t ch);
uint32_t tc_read_rb(Tc *tc, uint32_t ch);
void tc_enable_interrupt(Tc *tc, uint32_t ch, uint32_t mask);
void sysclk_init(void);
void board_init(void);
void motor_enable(bool on);
void heater_set(uint32_t permille);
uint32_t adc_read_mv(void);
void printf_uart(const char *fmt, ...);
#endif
