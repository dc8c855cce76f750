/* Zephyr-style kernel names (irq_lock/irq_unlock, IRQ_CONNECT, irq_enable, k_sem, k_thread),
 * declared here so the programs parse without Zephyr. Written for this corpus.
 * As in Zephyr on ARMv7-M: irq_lock() raises BASEPRI so that every interrupt is masked except
 * those connected with IRQ_ZERO_LATENCY, which irq_lock() never masks. IRQ_CONNECT priorities
 * are Zephyr levels (0 most urgent among the maskable ones). */
#ifndef HO2_ZEPHYR_MINI_H
#define HO2_ZEPHYR_MINI_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct {
    int64_t ticks;
} k_timeout_t;
#define K_FOREVER ((k_timeout_t){-1})
#define K_NO_WAIT ((k_timeout_t){0})
#define K_MSEC(ms) ((k_timeout_t){(ms)})

struct k_sem {
    volatile uint32_t count;
    uint32_t limit;
};
#define K_SEM_DEFINE(name, initial, lim) struct k_sem name = {(initial), (lim)}
int k_sem_take(struct k_sem *sem, k_timeout_t timeout);
void k_sem_give(struct k_sem *sem);

unsigned int irq_lock(void);
void irq_unlock(unsigned int key);
void irq_enable(unsigned int irq);
void irq_disable(unsigned int irq);

#define IRQ_ZERO_LATENCY (1U << 1)
int irq_connect_dynamic(unsigned int irq, unsigned int priority, void (*routine)(const void *),
                        const void *parameter, uint32_t flags);
#define IRQ_CONNECT(irq_p, prio_p, isr_p, isr_param_p, flags_p) \
    irq_connect_dynamic((irq_p), (prio_p), (void (*)(const void *))(isr_p), (isr_param_p), (flags_p))

struct k_thread {
    void *entry;
};
typedef struct k_thread *k_tid_t;
typedef uint8_t k_thread_stack_t;
typedef void (*k_thread_entry_t)(void *p1, void *p2, void *p3);
#define K_THREAD_STACK_DEFINE(sym, size) k_thread_stack_t sym[(size)]
#define K_THREAD_STACK_SIZEOF(sym) sizeof(sym)
k_tid_t k_thread_create(struct k_thread *new_thread, k_thread_stack_t *stack, size_t stack_size,
                        k_thread_entry_t entry, void *p1, void *p2, void *p3, int prio,
                        uint32_t options, k_timeout_t delay);
void k_msleep(int32_t ms);
void k_yield(void);

#define ADC_IRQ 24U
#define UART0_IRQ 2U
#define TIMER1_IRQ 9U
#define MOTOR_PWM_IRQ 12U

uint32_t adc_read_result(void);
uint8_t uart_read_byte(void);
void sensor_read_xyz(int16_t *x, int16_t *y, int16_t *z);
void publish_xyz(int16_t x, int16_t y, int16_t z);
void printk(const char *fmt, ...);
uint32_t pwm_capture(void);

#endif
