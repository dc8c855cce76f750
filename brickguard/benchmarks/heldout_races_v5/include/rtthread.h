/* RT-Thread 4.x on an STM32F407 (Cortex-M4, 4 priority bits), the parts of rtthread.h, rthw.h
 * and rtdef.h this corpus uses.
 * - Body-less, as in RT-Thread (libcpu/arm/cortex-m4/context_gcc.S and src/): 
 *   rt_hw_interrupt_disable() (returns PRIMASK, then CPSID I) / rt_hw_interrupt_enable(level);
 *   rt_enter_critical()/rt_exit_critical() (a scheduler lock: interrupts still run);
 *   rt_interrupt_enter/leave; threads, semaphores, mutexes, timers.
 * - rt_timer callbacks of an RT_TIMER_FLAG_HARD_TIMER timer run in the SysTick interrupt; those of
 *   an RT_TIMER_FLAG_SOFT_TIMER timer run in the "timer" thread (RT_TIMER_THREAD_PRIO 4). main()
 *   is itself a thread (RT_MAIN_THREAD_PRIORITY 10); lower numbers are more urgent. */
#ifndef RTTHREAD_H
#define RTTHREAD_H
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
typedef enum IRQn {
    SysTick_IRQn = -1,
    EXTI0_IRQn = 6,
    ADC_IRQn = 18,
    TIM2_IRQn = 28,
    USART2_IRQn = 38,
    DMA2_Stream0_IRQn = 56,
} IRQn_Type;
#define __NVIC_PRIO_BITS 4U
#define __CORTEX_M 4U
#include "cm_core.h"

typedef long rt_base_t;
typedef unsigned long rt_ubase_t;
typedef rt_base_t rt_err_t;
typedef uint32_t rt_uint32_t;
typedef uint16_t rt_uint16_t;
typedef uint8_t rt_uint8_t;
typedef int32_t rt_int32_t;
typedef rt_uint32_t rt_tick_t;
typedef rt_base_t rt_size_t;
#define RT_NULL ((void *)0)
#define RT_EOK 0
#define RT_ERROR 1
#define RT_WAITING_FOREVER -1
#define RT_TICK_PER_SECOND 1000

rt_base_t rt_hw_interrupt_disable(void);
void rt_hw_interrupt_enable(rt_base_t level);
void rt_enter_critical(void);
void rt_exit_critical(void);
void rt_interrupt_enter(void);
void rt_interrupt_leave(void);

typedef struct rt_thread *rt_thread_t;
rt_thread_t rt_thread_create(const char *name, void (*entry)(void *parameter), void *parameter,
                             rt_uint32_t stack_size, rt_uint8_t priority, rt_uint32_t tick);
rt_err_t rt_thread_startup(rt_thread_t thread);
rt_err_t rt_thread_mdelay(rt_int32_t ms);
rt_tick_t rt_tick_get(void);

typedef struct rt_semaphore *rt_sem_t;
rt_sem_t rt_sem_create(const char *name, rt_uint32_t value, rt_uint8_t flag);
rt_err_t rt_sem_take(rt_sem_t sem, rt_int32_t time);
rt_err_t rt_sem_release(rt_sem_t sem);
typedef struct rt_mutex *rt_mutex_t;
rt_mutex_t rt_mutex_create(const char *name, rt_uint8_t flag);
rt_err_t rt_mutex_take(rt_mutex_t mutex, rt_int32_t time);
rt_err_t rt_mutex_release(rt_mutex_t mutex);
#define RT_IPC_FLAG_PRIO 0x01

typedef struct rt_timer *rt_timer_t;
#define RT_TIMER_FLAG_ONE_SHOT 0x0
#define RT_TIMER_FLAG_PERIODIC 0x2
#define RT_TIMER_FLAG_HARD_TIMER 0x0
#define RT_TIMER_FLAG_SOFT_TIMER 0x4
rt_timer_t rt_timer_create(const char *name, void (*timeout)(void *parameter), void *parameter,
                           rt_tick_t time, rt_uint8_t flag);
rt_err_t rt_timer_start(rt_timer_t timer);
int rt_kprintf(const char *fmt, ...);

/* board code of these programs (not RT-Thread): declared, defined elsewhere */
#define ADC1_DR (*(volatile uint32_t *)0x4001204CU)
#define DMA2_LISR (*(volatile uint32_t *)0x40026400U)
#define DMA2_LIFCR (*(volatile uint32_t *)0x40026408U)
#define DMA_LISR_TCIF0 (1U << 5)
#define DMA_LISR_HTIF0 (1U << 4)
#define EXTI_PR (*(volatile uint32_t *)0x40013C14U)
#define TIM2_SR (*(volatile uint32_t *)0x40000010U)
#define USART2_SR (*(volatile uint32_t *)0x40004400U)
#define USART2_DR (*(volatile uint32_t *)0x40004404U)
void adc_dma_start(uint16_t *buf, uint32_t count);
void spi_flash_write(uint32_t addr, const void *data, uint32_t len);
void spi_bus_transfer(const uint8_t *tx, uint8_t *rx, uint32_t len);
void charger_enable(bool on);
#endif
