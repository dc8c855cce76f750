/* Microchip ASF4 / Atmel START on a SAM D21 (Cortex-M0+: 2 priority bits, no BASEPRI, no
 * LDREX/STREX), the parts of hal_atomic.h, hal_timer.h, hal_ext_irq.h, hal_usart_async.h,
 * hal_io.h and hal_delay.h this corpus uses.
 * - CRITICAL_SECTION_ENTER()/CRITICAL_SECTION_LEAVE(): atomic_enter_critical() saves PRIMASK,
 *   disables interrupts and issues a DMB; atomic_leave_critical() restores PRIMASK (functions in
 *   hal_atomic.c, inline here with the same bodies).
 * - timer task callbacks run from the timer's interrupt (TC3_Handler -> timer_process_counted);
 *   ext_irq callbacks run from EIC_Handler; usart_async callbacks run from SERCOMn_Handler.
 * - Vector names end in _Handler (SAM D21 startup). */
#ifndef ATMEL_START_H
#define ATMEL_START_H

typedef enum {
    SysTick_IRQn = -1,
    EIC_IRQn = 4,
    SERCOM3_IRQn = 12,
    TC3_IRQn = 18,
} IRQn_Type;
#define __NVIC_PRIO_BITS 2U
#define __CORTEX_M 0U
#include "cm_core.h"

typedef uint32_t hal_atomic_t;
static inline void atomic_enter_critical(hal_atomic_t volatile *atomic)
{
    *atomic = __get_PRIMASK();
    __disable_irq();
    __DMB();
}
static inline void atomic_leave_critical(hal_atomic_t volatile *atomic)
{
    __DMB();
    __set_PRIMASK(*atomic);
}
#define CRITICAL_SECTION_ENTER()                                                                   \
    {                                                                                              \
        volatile hal_atomic_t __atomic;                                                            \
        atomic_enter_critical(&__atomic);
#define CRITICAL_SECTION_LEAVE()                                                                   \
    atomic_leave_critical(&__atomic);                                                              \
    }

struct timer_descriptor { void *hw; uint32_t time; void *tasks; };
struct timer_task;
typedef void (*timer_cb_t)(const struct timer_task *const timer_task);
enum timer_task_mode { TIMER_TASK_ONE_SHOT, TIMER_TASK_REPEAT };
struct timer_task {
    void *elem;
    uint32_t time_label;
    uint32_t interval;
    timer_cb_t cb;
    enum timer_task_mode mode;
};
extern struct timer_descriptor TIMER_0;
int32_t timer_add_task(struct timer_descriptor *const descr, struct timer_task *const task);
int32_t timer_start(struct timer_descriptor *const descr);

typedef void (*ext_irq_cb_t)(void);
int32_t ext_irq_register(const uint32_t pin, ext_irq_cb_t cb);
#define PIN_PA14 14U
#define PIN_PA15 15U

struct io_descriptor;
struct usart_async_descriptor { void *hw; struct io_descriptor *io; };
typedef void (*usart_cb_t)(const struct usart_async_descriptor *const descr);
enum usart_async_callback_type { USART_ASYNC_RXC_CB, USART_ASYNC_TXC_CB, USART_ASYNC_ERROR_CB };
extern struct usart_async_descriptor USART_0;
int32_t usart_async_register_callback(struct usart_async_descriptor *const descr,
                                      const enum usart_async_callback_type type, usart_cb_t cb);
int32_t usart_async_get_io_descriptor(struct usart_async_descriptor *const descr, struct io_descriptor **io);
int32_t usart_async_enable(struct usart_async_descriptor *const descr);
int32_t io_write(struct io_descriptor *const io_descr, const uint8_t *const buf, const uint16_t length);

void system_init(void);
void delay_ms(const uint16_t ms);
bool gpio_get_pin_level(const uint8_t pin);

void clock_advance_ms(void);
void door_event(void);
void motion_event(void);
void light_set(bool on);
#endif
