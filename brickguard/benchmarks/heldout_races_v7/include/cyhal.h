/* Infineon ModusToolbox HAL (cyhal, mtb-hal-cat1 1.x) subset for a PSoC 62 (CY8C624A, CM4 core),
 * written for this corpus with the HAL's names. __NVIC_PRIO_BITS is 3 (0 most urgent .. 7).
 * Inline (bodies here): the CMSIS-Core intrinsics (cmsis_core.h).
 * Body-less HAL functions, declared only, with their documented effect:
 *   cyhal_system_critical_section_enter(): saves the interrupt state and disables interrupts
 *     (PRIMASK; Cy_SysLib_EnterCriticalSection); returns the saved state.
 *     cyhal_system_critical_section_exit(state): restores it.
 *   cyhal_uart_register_callback(&uart, cb, arg) + cyhal_uart_enable_event(&uart, events, prio,
 *     true): cb(arg, event) is called from the UART's (SCB's) interrupt handler, in interrupt
 *     context, at interrupt priority prio, for each enabled event.
 *   cyhal_uart_read_async(&uart, buf, n): returns at once; the HAL's SCB interrupt fills buf and
 *     raises CYHAL_UART_IRQ_RX_DONE when n bytes are in. cyhal_uart_getc(&uart, &c, timeout):
 *     one byte (0 timeout: wait forever). cyhal_uart_readable(&uart): bytes in the RX FIFO.
 *     cyhal_uart_putc / cyhal_uart_write (blocking).
 *   cyhal_timer_register_callback / cyhal_timer_enable_event(&tmr, event, prio, true): likewise,
 *     cb runs in the TCPWM counter's interrupt at priority prio. cyhal_timer_read: the count.
 *   cyhal_gpio_register_callback(pin, cb, arg) + cyhal_gpio_enable_event(pin, event, prio, true):
 *     cb(arg, event) runs in the GPIO port's interrupt at priority prio.
 *   cyhal_pwm_set_duty_cycle(&pwm, percent, hz): reprograms the PWM's compare value at once.
 *   cyhal_adc_read_u16(&chan): one conversion, blocking.
 *   cyhal_system_delay_ms(ms): busy-waits. */
#ifndef CYHAL_H
#define CYHAL_H
#define __NVIC_PRIO_BITS 3U
#include "cmsis_core.h"
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

typedef uint32_t cy_rslt_t;
#define CY_RSLT_SUCCESS 0U
typedef int32_t cyhal_gpio_t;
#define NC (-1)
#define P0_4 4
#define P5_0 40
#define P5_1 41
#define P6_2 50
#define P9_0 72
#define P13_7 111
#define CYBSP_USER_BTN P0_4
#define CYBSP_USER_LED P13_7
#define CYBSP_DEBUG_UART_TX P5_1
#define CYBSP_DEBUG_UART_RX P5_0
typedef struct { uint32_t opaque[24]; } cyhal_uart_t;
typedef struct { uint32_t opaque[16]; } cyhal_timer_t;
typedef struct { uint32_t opaque[16]; } cyhal_pwm_t;
typedef struct { uint32_t opaque[8]; } cyhal_adc_t;
typedef struct { uint32_t opaque[8]; } cyhal_adc_channel_t;
typedef struct { uint32_t data_bits, stop_bits; int parity; uint8_t *rx_buffer; uint32_t rx_buffer_size; } cyhal_uart_cfg_t;
typedef struct { uint32_t compare_value, period; int direction; bool is_compare, is_continuous; uint32_t value; } cyhal_timer_cfg_t;
typedef enum { CYHAL_UART_IRQ_NONE = 0, CYHAL_UART_IRQ_TX_DONE = 1 << 1, CYHAL_UART_IRQ_RX_NOT_EMPTY = 1 << 6,
               CYHAL_UART_IRQ_RX_DONE = 1 << 8, CYHAL_UART_IRQ_RX_ERROR = 1 << 9 } cyhal_uart_event_t;
typedef enum { CYHAL_TIMER_IRQ_NONE = 0, CYHAL_TIMER_IRQ_TERMINAL_COUNT = 1, CYHAL_TIMER_IRQ_CAPTURE_COMPARE = 2 } cyhal_timer_event_t;
typedef enum { CYHAL_GPIO_IRQ_NONE = 0, CYHAL_GPIO_IRQ_RISE = 1, CYHAL_GPIO_IRQ_FALL = 2, CYHAL_GPIO_IRQ_BOTH = 3 } cyhal_gpio_event_t;
typedef enum { CYHAL_GPIO_DIR_INPUT = 0, CYHAL_GPIO_DIR_OUTPUT = 1 } cyhal_gpio_direction_t;
typedef enum { CYHAL_GPIO_DRIVE_NONE = 0, CYHAL_GPIO_DRIVE_PULLUP = 2, CYHAL_GPIO_DRIVE_STRONG = 6 } cyhal_gpio_drive_mode_t;
typedef void (*cyhal_uart_event_callback_t)(void *callback_arg, cyhal_uart_event_t event);
typedef void (*cyhal_timer_event_callback_t)(void *callback_arg, cyhal_timer_event_t event);
typedef void (*cyhal_gpio_event_callback_t)(void *callback_arg, cyhal_gpio_event_t event);
#define CYHAL_TIMER_DIR_UP 0

uint32_t cyhal_system_critical_section_enter(void);
void cyhal_system_critical_section_exit(uint32_t old_state);
cy_rslt_t cyhal_system_delay_ms(uint32_t milliseconds);
cy_rslt_t cyhal_uart_init(cyhal_uart_t *obj, cyhal_gpio_t tx, cyhal_gpio_t rx, cyhal_gpio_t cts, cyhal_gpio_t rts, const void *clk, const cyhal_uart_cfg_t *cfg);
cy_rslt_t cyhal_uart_set_baud(cyhal_uart_t *obj, uint32_t baudrate, uint32_t *actualbaud);
void cyhal_uart_register_callback(cyhal_uart_t *obj, cyhal_uart_event_callback_t callback, void *callback_arg);
void cyhal_uart_enable_event(cyhal_uart_t *obj, cyhal_uart_event_t event, uint8_t intr_priority, bool enable);
cy_rslt_t cyhal_uart_getc(cyhal_uart_t *obj, uint8_t *value, uint32_t timeout);
cy_rslt_t cyhal_uart_putc(cyhal_uart_t *obj, uint32_t value);
cy_rslt_t cyhal_uart_write(cyhal_uart_t *obj, void *tx, size_t *tx_length);
uint32_t cyhal_uart_readable(cyhal_uart_t *obj);
cy_rslt_t cyhal_uart_read_async(cyhal_uart_t *obj, void *rx, size_t length);
cy_rslt_t cyhal_timer_init(cyhal_timer_t *obj, cyhal_gpio_t pin, const void *clk);
cy_rslt_t cyhal_timer_configure(cyhal_timer_t *obj, const cyhal_timer_cfg_t *cfg);
cy_rslt_t cyhal_timer_set_frequency(cyhal_timer_t *obj, uint32_t hz);
cy_rslt_t cyhal_timer_start(cyhal_timer_t *obj);
uint32_t cyhal_timer_read(const cyhal_timer_t *obj);
void cyhal_timer_register_callback(cyhal_timer_t *obj, cyhal_timer_event_callback_t callback, void *callback_arg);
void cyhal_timer_enable_event(cyhal_timer_t *obj, cyhal_timer_event_t event, uint8_t intr_priority, bool enable);
cy_rslt_t cyhal_gpio_init(cyhal_gpio_t pin, cyhal_gpio_direction_t direction, cyhal_gpio_drive_mode_t drive_mode, bool init_val);
void cyhal_gpio_write(cyhal_gpio_t pin, bool value);
bool cyhal_gpio_read(cyhal_gpio_t pin);
void cyhal_gpio_toggle(cyhal_gpio_t pin);
void cyhal_gpio_register_callback(cyhal_gpio_t pin, cyhal_gpio_event_callback_t callback, void *callback_arg);
void cyhal_gpio_enable_event(cyhal_gpio_t pin, cyhal_gpio_event_t event, uint8_t intr_priority, bool enable);
cy_rslt_t cyhal_pwm_init(cyhal_pwm_t *obj, cyhal_gpio_t pin, const void *clk);
cy_rslt_t cyhal_pwm_set_duty_cycle(cyhal_pwm_t *obj, float duty_cycle, uint32_t frequencyhal_hz);
cy_rslt_t cyhal_pwm_start(cyhal_pwm_t *obj);
uint16_t cyhal_adc_read_u16(const cyhal_adc_channel_t *obj);
cy_rslt_t cybsp_init(void);
int printf(const char *fmt, ...);
#endif
