/* Raspberry Pi RP2040 with the pico-sdk, trimmed: hardware/irq.h, hardware/sync.h (the inline
 * bodies of save_and_disable_interrupts, restore_interrupts and the spin locks), pico/multicore.h,
 * pico/time.h (repeating timers run their callback in the alarm pool's TIMER_IRQ_3 handler),
 * hardware/gpio.h (the gpio callback runs in the IO_IRQ_BANK0 handler), hardware/uart.h and
 * hardware/timer.h. Cortex-M0+: two priority bits, no BASEPRI, no LDREX/STREX. */
#ifndef PICO_SDK_H
#define PICO_SDK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef unsigned int uint;

/* ---- hardware/regs/intctrl.h ---- */
#define TIMER_IRQ_0 0
#define TIMER_IRQ_1 1
#define TIMER_IRQ_2 2
#define TIMER_IRQ_3 3
#define DMA_IRQ_0 11
#define IO_IRQ_BANK0 13
#define SIO_IRQ_PROC0 15
#define UART0_IRQ 20
#define UART1_IRQ 21
#define ADC_IRQ_FIFO 22

/* ---- hardware/irq.h ---- */
#define PICO_DEFAULT_IRQ_PRIORITY 0x80
#define PICO_HIGHEST_IRQ_PRIORITY 0x00
#define PICO_LOWEST_IRQ_PRIORITY 0xff
typedef void (*irq_handler_t)(void);
void irq_set_exclusive_handler(uint num, irq_handler_t handler);
void irq_set_enabled(uint num, bool enabled);
/* hardware_priority: the 8-bit NVIC value; the RP2040 implements its top 2 bits (0x00, 0x40,
 * 0x80, 0xc0); lower is more urgent. */
void irq_set_priority(uint num, uint8_t hardware_priority);

/* ---- hardware/sync.h ---- */
static inline void __dmb(void) { __asm volatile("dmb" : : : "memory"); }
static inline void __mem_fence_acquire(void) { __dmb(); }
static inline void __mem_fence_release(void) { __dmb(); }
static inline void __wfe(void) { __asm volatile("wfe"); }
static inline void __sev(void) { __asm volatile("sev"); }

static inline uint32_t save_and_disable_interrupts(void)
{
    uint32_t status;
    __asm volatile("mrs %0, PRIMASK\n"
                   "cpsid i"
                   : "=r"(status)::"memory");
    return status;
}

static inline void restore_interrupts(uint32_t status)
{
    __asm volatile("msr PRIMASK,%0" ::"r"(status) : "memory");
}

typedef volatile uint32_t spin_lock_t;
#define SIO_SPINLOCK0_ADDR 0xd0000100u
static inline spin_lock_t *spin_lock_instance(uint lock_num)
{
    return (spin_lock_t *)(uintptr_t)(SIO_SPINLOCK0_ADDR + lock_num * 4u);
}
int spin_lock_claim_unused(bool required);
spin_lock_t *spin_lock_init(uint lock_num);
static inline void spin_lock_unsafe_blocking(spin_lock_t *lock)
{
    /* reading the SIO spinlock register claims it: non-zero means this core now owns it */
    while (__builtin_expect(!*lock, 0)) {
    }
    __mem_fence_acquire();
}
static inline void spin_unlock_unsafe(spin_lock_t *lock)
{
    __mem_fence_release();
    *lock = 0;
}
static inline uint32_t spin_lock_blocking(spin_lock_t *lock)
{
    uint32_t save = save_and_disable_interrupts();
    spin_lock_unsafe_blocking(lock);
    return save;
}
static inline void spin_unlock(spin_lock_t *lock, uint32_t saved_irq)
{
    spin_unlock_unsafe(lock);
    restore_interrupts(saved_irq);
}

/* ---- pico/multicore.h: core 1 runs `entry` with its own interrupts and NVIC ---- */
void multicore_launch_core1(void (*entry)(void));
void multicore_reset_core1(void);
bool multicore_fifo_rvalid(void);
bool multicore_fifo_wready(void);
void multicore_fifo_push_blocking(uint32_t data);
uint32_t multicore_fifo_pop_blocking(void);
uint get_core_num(void);

/* ---- pico/time.h ---- */
typedef struct repeating_timer repeating_timer_t;
typedef bool (*repeating_timer_callback_t)(repeating_timer_t *rt);
struct repeating_timer {
    int64_t delay_us;
    int32_t alarm_id;
    repeating_timer_callback_t callback;
    void *user_data;
};
bool add_repeating_timer_ms(int32_t delay_ms, repeating_timer_callback_t callback, void *user_data,
                            repeating_timer_t *out);
bool cancel_repeating_timer(repeating_timer_t *timer);
void sleep_ms(uint32_t ms);
void sleep_us(uint64_t us);

/* ---- hardware/timer.h ---- */
typedef struct {
    volatile uint32_t timehw, timelw, timehr, timelr;
    volatile uint32_t alarm[4];
    volatile uint32_t armed, timerawh, timerawl, dbgpause, pause, intr, inte, intf, ints;
} timer_hw_t;
#define timer_hw ((timer_hw_t *)0x40054000u)
static inline void hw_clear_bits(volatile uint32_t *addr, uint32_t mask)
{
    *(volatile uint32_t *)((uintptr_t)addr | 0x3000u) = mask;
}
static inline void hw_set_bits(volatile uint32_t *addr, uint32_t mask)
{
    *(volatile uint32_t *)((uintptr_t)addr | 0x2000u) = mask;
}
uint64_t time_us_64(void);

/* ---- hardware/gpio.h ---- */
#define GPIO_IRQ_LEVEL_LOW 0x1u
#define GPIO_IRQ_LEVEL_HIGH 0x2u
#define GPIO_IRQ_EDGE_FALL 0x4u
#define GPIO_IRQ_EDGE_RISE 0x8u
typedef void (*gpio_irq_callback_t)(uint gpio, uint32_t event_mask);
void gpio_init(uint gpio);
void gpio_pull_up(uint gpio);
bool gpio_get(uint gpio);
void gpio_put(uint gpio, bool value);
void gpio_set_irq_enabled_with_callback(uint gpio, uint32_t event_mask, bool enabled,
                                        gpio_irq_callback_t callback);

/* ---- hardware/uart.h ---- */
typedef struct uart_inst uart_inst_t;
extern uart_inst_t *const pico_uart0;
#define uart0 pico_uart0
uint uart_init(uart_inst_t *uart, uint baudrate);
void uart_set_irq_enables(uart_inst_t *uart, bool rx_has_data, bool tx_needs_data);
bool uart_is_readable(uart_inst_t *uart);
char uart_getc(uart_inst_t *uart);
void uart_putc_raw(uart_inst_t *uart, char c);

/* ---- pico/stdlib.h ---- */
bool stdio_init_all(void);
static inline void tight_loop_contents(void) {}
int printf(const char *format, ...);

#endif
