/* RIOT OS on an STM32F401 (cpu/stm32, cortexm_common), the parts of irq.h,
 * mutex.h, thread.h, ztimer.h, periph/gpio.h and periph/uart.h this corpus uses.
 * - irq_disable() saves PRIMASK and sets it; irq_restore(state) writes it back (irq_arch.c).
 * - mutex_lock() blocks threads only: interrupts, and the callbacks they run, go on.
 * - gpio_init_int(), uart_init() and ztimer callbacks run in interrupt context. */
#ifndef RIOT_H
#define RIOT_H

typedef enum {
    SysTick_IRQn = -1,
    EXTI9_5_IRQn = 23,
    USART2_IRQn = 38,
    TIM5_IRQn = 50,
} IRQn_Type;
#define __NVIC_PRIO_BITS 4U
#define __CORTEX_M 4U
#include "cm_core.h"

static inline unsigned irq_disable(void)
{
    uint32_t mask = __get_PRIMASK();
    __disable_irq();
    return (unsigned)mask;
}
static inline void irq_restore(unsigned state) { __set_PRIMASK(state); }
static inline void irq_enable(void) { __enable_irq(); }

typedef struct { void *queue_next; } mutex_t;
#define MUTEX_INIT { NULL }
void mutex_lock(mutex_t *mutex);
void mutex_unlock(mutex_t *mutex);

typedef int16_t kernel_pid_t;
typedef void *(*thread_task_func_t)(void *arg);
#define THREAD_STACKSIZE_DEFAULT 1024
#define THREAD_PRIORITY_MAIN 7
#define THREAD_CREATE_STACKTEST 8
kernel_pid_t thread_create(char *stack, int stacksize, uint8_t priority, int flags,
                           thread_task_func_t task_func, void *arg, const char *name);

typedef struct ztimer_clock ztimer_clock_t;
extern ztimer_clock_t *const ZTIMER_MSEC;
extern ztimer_clock_t *const ZTIMER_USEC;
typedef struct {
    struct { void *next; uint32_t offset; } base;
    void (*callback)(void *arg);
    void *arg;
} ztimer_t;
void ztimer_set(ztimer_clock_t *clock, ztimer_t *timer, uint32_t val);
void ztimer_sleep(ztimer_clock_t *clock, uint32_t duration);
uint32_t ztimer_now(ztimer_clock_t *clock);

typedef unsigned gpio_t;
#define GPIO_PIN(port, pin) ((gpio_t)(((port) << 4) | (pin)))
typedef enum { GPIO_IN, GPIO_IN_PU, GPIO_OUT } gpio_mode_t;
typedef enum { GPIO_FALLING = 1, GPIO_RISING = 2, GPIO_BOTH = 3 } gpio_flank_t;
typedef void (*gpio_cb_t)(void *arg);
int gpio_init_int(gpio_t pin, gpio_mode_t mode, gpio_flank_t flank, gpio_cb_t cb, void *arg);

typedef unsigned uart_t;
#define UART_DEV(x) ((uart_t)(x))
typedef void (*uart_rx_cb_t)(void *arg, uint8_t data);
int uart_init(uart_t uart, uint32_t baud, uart_rx_cb_t rx_cb, void *arg);
void uart_write(uart_t uart, const uint8_t *data, size_t len);

void sensor_sample_start(void);
void shell_handle(uint8_t c);
void print_wind(uint32_t edges, uint32_t interval_us);
void handle_events(uint32_t ev);
bool flash_page_write_raw(uint32_t page, const uint8_t *data);
void flash_mark_bad(uint32_t page);
void report_uart_error(int err);
void log_page(uint32_t page, uint8_t last_rx);
#endif
