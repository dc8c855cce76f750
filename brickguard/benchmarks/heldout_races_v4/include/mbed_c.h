/* Mbed OS 6 C API (platform/mbed_critical.h, platform/mbed_atomic.h, hal/gpio_irq_api.h,
 * hal/serial_api.h, hal/ticker_api.h) on a NUCLEO-F446RE target, the parts this corpus uses.
 * - core_util_critical_section_enter()/exit(): nestable; the first enter saves PRIMASK and
 *   disables interrupts (hal_critical_section_enter), the last exit restores it. (Functions in
 *   mbed_critical.c; inline here with the same effect.)
 * - core_util_atomic_*_u32 are LDREX/STREX loops (mbed_atomic_impl.h, inline on ARMv7-M);
 *   core_util_atomic_load_u64 reads under a critical section (mbed_atomic_impl.c).
 * - gpio_irq and serial irq handlers run in the interrupt. */
#ifndef MBED_C_H
#define MBED_C_H

typedef enum {
    SysTick_IRQn = -1,
    EXTI15_10_IRQn = 40,
    USART2_IRQn = 38,
} IRQn_Type;
#define __NVIC_PRIO_BITS 4U
#define __CORTEX_M 4U
#include "cm_core.h"

extern volatile uint32_t critical_section_reentrancy_counter;
extern volatile uint32_t critical_primask_state;
static inline void core_util_critical_section_enter(void)
{
    uint32_t primask = __get_PRIMASK();
    __disable_irq();
    if (critical_section_reentrancy_counter == 0U) {
        critical_primask_state = primask;
    }
    critical_section_reentrancy_counter++;
}
static inline void core_util_critical_section_exit(void)
{
    if (--critical_section_reentrancy_counter == 0U) {
        __set_PRIMASK(critical_primask_state);
    }
}

static inline uint32_t core_util_atomic_fetch_or_u32(volatile uint32_t *valuePtr, uint32_t arg)
{
    uint32_t oldValue, newValue;
    do {
        oldValue = __LDREXW(valuePtr);
        newValue = oldValue | arg;
    } while (__STREXW(newValue, valuePtr) != 0U);
    return oldValue;
}
static inline uint32_t core_util_atomic_fetch_and_u32(volatile uint32_t *valuePtr, uint32_t arg)
{
    uint32_t oldValue, newValue;
    do {
        oldValue = __LDREXW(valuePtr);
        newValue = oldValue & arg;
    } while (__STREXW(newValue, valuePtr) != 0U);
    return oldValue;
}
uint64_t core_util_atomic_load_u64(const volatile uint64_t *valuePtr);

typedef enum { PA_0 = 0x00, PA_2 = 0x02, PA_3 = 0x03, PC_13 = 0x2D } PinName;
typedef enum { IRQ_NONE, IRQ_RISE, IRQ_FALL } gpio_irq_event;
typedef struct { uint32_t port_index; uint32_t pin; uint32_t irq_index; uint32_t event; } gpio_irq_t;
typedef void (*gpio_irq_handler)(uintptr_t context, gpio_irq_event event);
int gpio_irq_init(gpio_irq_t *obj, PinName pin, gpio_irq_handler handler, uintptr_t context);
void gpio_irq_set(gpio_irq_t *obj, gpio_irq_event event, uint32_t enable);
void gpio_irq_enable(gpio_irq_t *obj);

typedef enum { RxIrq, TxIrq } SerialIrq;
typedef struct { uint32_t index; uint32_t baudrate; } serial_t;
typedef void (*uart_irq_handler)(uintptr_t context, SerialIrq event);
void serial_init(serial_t *obj, PinName tx, PinName rx);
void serial_baud(serial_t *obj, int baudrate);
void serial_irq_handler(serial_t *obj, uart_irq_handler handler, uintptr_t context);
void serial_irq_set(serial_t *obj, SerialIrq irq, uint32_t enable);
int serial_getc(serial_t *obj);
void serial_putc(serial_t *obj, int c);
int serial_readable(serial_t *obj);

typedef uint64_t us_timestamp_t;
typedef struct ticker_data ticker_data_t;
const ticker_data_t *get_us_ticker_data(void);
us_timestamp_t ticker_read_us(const ticker_data_t *const ticker);
void wait_us(int us);

void handle_button(void);
void handle_command(int c);
void report_interval(uint32_t us);
size_t format_status(char *buf, size_t cap);
#endif
