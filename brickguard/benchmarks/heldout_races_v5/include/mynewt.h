/* Apache Mynewt OS 1.x on an nRF52840 (Cortex-M4, 3 priority bits), the parts of <os/os.h>,
 * <hal/hal_gpio.h>, <hal/hal_timer.h> this corpus uses.
 * - Body-less, as in Mynewt (kernel/os/src/arch/cortex_m4/os_arch_arm.c): os_arch_save_sr()
 *   (reads PRIMASK, then CPSID I) and os_arch_restore_sr(); OS_ENTER_CRITICAL/OS_EXIT_CRITICAL
 *   are the macros over them, as in os_arch.h.
 * - os_callout callbacks are events: they run in the task that calls os_eventq_run() on the
 *   callout's queue (here main, on the default queue), never in an interrupt.
 * - hal_gpio_irq_init handlers and hal_timer callbacks run in the GPIOTE / TIMERn interrupt.
 * - os_mutex_pend/os_sched_suspend lock out tasks, not interrupts. */
#ifndef MYNEWT_H
#define MYNEWT_H
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

typedef uint32_t os_sr_t;
typedef uint32_t os_time_t;
typedef int32_t os_stime_t;
typedef uint32_t os_stack_t;
os_sr_t os_arch_save_sr(void);
void os_arch_restore_sr(os_sr_t sr);
#define OS_ENTER_CRITICAL(__os_sr) ((__os_sr) = os_arch_save_sr())
#define OS_EXIT_CRITICAL(__os_sr) (os_arch_restore_sr(__os_sr))
#define OS_TICKS_PER_SEC 128
#define OS_TIMEOUT_NEVER (UINT32_MAX)

struct os_event;
typedef void os_event_fn(struct os_event *ev);
struct os_event {
    uint8_t ev_queued;
    os_event_fn *ev_cb;
    void *ev_arg;
    struct os_event *next;
};
struct os_eventq {
    struct os_event *head;
};
struct os_callout {
    struct os_event c_ev;
    struct os_eventq *c_evq;
    os_time_t c_ticks;
};
struct os_eventq *os_eventq_dflt_get(void);
void os_eventq_run(struct os_eventq *evq);
void os_eventq_put(struct os_eventq *evq, struct os_event *ev);
void os_callout_init(struct os_callout *cf, struct os_eventq *evq, os_event_fn *ev_cb, void *ev_arg);
int os_callout_reset(struct os_callout *c, os_time_t ticks);
os_time_t os_time_get(void);
void os_time_delay(os_time_t osticks);

struct os_task {
    os_stack_t *t_stackptr;
    uint8_t t_prio;
};
typedef void os_task_func_t(void *arg);
int os_task_init(struct os_task *t, const char *name, os_task_func_t func, void *arg, uint8_t prio,
                 os_time_t sanity_itvl, os_stack_t *stack_bottom, uint16_t stack_size);
struct os_sem {
    uint16_t sem_tokens;
};
int os_sem_init(struct os_sem *sem, uint16_t tokens);
int os_sem_release(struct os_sem *sem);
int os_sem_pend(struct os_sem *sem, os_time_t timeout);
struct os_mutex {
    uint8_t mu_level;
};
int os_mutex_init(struct os_mutex *mu);
int os_mutex_pend(struct os_mutex *mu, os_time_t timeout);
int os_mutex_release(struct os_mutex *mu);

void sysinit(void);

typedef void (*hal_gpio_irq_handler_t)(void *arg);
typedef enum { HAL_GPIO_TRIG_NONE, HAL_GPIO_TRIG_RISING, HAL_GPIO_TRIG_FALLING, HAL_GPIO_TRIG_BOTH } hal_gpio_irq_trig_t;
typedef enum { HAL_GPIO_PULL_NONE, HAL_GPIO_PULL_UP, HAL_GPIO_PULL_DOWN } hal_gpio_pull_t;
int hal_gpio_irq_init(int pin, hal_gpio_irq_handler_t handler, void *arg, hal_gpio_irq_trig_t trig,
                      hal_gpio_pull_t pull);
void hal_gpio_irq_enable(int pin);
void hal_gpio_irq_disable(int pin);
int hal_gpio_read(int pin);
int hal_gpio_init_out(int pin, int val);
void hal_gpio_write(int pin, int val);

typedef void (*hal_timer_cb)(void *arg);
struct hal_timer {
    void *bsp_timer;
    hal_timer_cb cb_func;
    void *cb_arg;
    uint32_t expiry;
};
int hal_timer_config(int timer_num, uint32_t freq_hz);
int hal_timer_set_cb(int timer_num, struct hal_timer *tmr, hal_timer_cb cb_func, void *arg);
int hal_timer_start(struct hal_timer *tmr, uint32_t ticks);
int hal_timer_start_at(struct hal_timer *tmr, uint32_t tick);
uint32_t hal_timer_read(int timer_num);

/* application/board code (not Mynewt): declared, defined elsewhere */
int console_printf(const char *fmt, ...);
int flash_log_append(const void *data, size_t len);
uint16_t saadc_read_mv(int channel);
#endif
