/* TencentOS tiny on an STM32L431 (Cortex-M4, 4 priority bits), the parts of tos_k.h,
 * tos_cpu.h and tos_compiler.h this corpus uses.
 * - Inline, as in tos_cpu.h: TOS_CPU_CPSR_ALLOC/TOS_CPU_INT_DISABLE/TOS_CPU_INT_ENABLE (macros).
 * - Body-less, as in TencentOS tiny (arch/arm/arm-v7m/cortex-m4/gcc/port_s.S and kernel/core):
 *   tos_cpu_cpsr_save() (reads PRIMASK, then CPSID I) / tos_cpu_cpsr_restore(); tos_knl_*,
 *   tos_task_*, tos_sem_*, tos_knl_sched_lock/unlock (a scheduler lock: interrupts still run). */
#ifndef TOS_K_H
#define TOS_K_H
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
typedef enum IRQn {
    SysTick_IRQn = -1,
    EXTI0_IRQn = 6,
    EXTI1_IRQn = 7,
    TIM2_IRQn = 28,
    LPUART1_IRQn = 70,
} IRQn_Type;
#define __NVIC_PRIO_BITS 4U
#define __CORTEX_M 4U
#include "cm_core.h"

typedef uint32_t cpu_cpsr_t;
typedef uint32_t k_tick_t;
typedef uint8_t k_prio_t;
typedef uint32_t k_stack_t;
typedef int k_err_t;
#define K_ERR_NONE 0
#define TOS_TIME_FOREVER ((k_tick_t)-1)
cpu_cpsr_t tos_cpu_cpsr_save(void);
void tos_cpu_cpsr_restore(cpu_cpsr_t cpsr);
#define TOS_CPU_CPSR_ALLOC() cpu_cpsr_t cpu_cpsr = (cpu_cpsr_t)0u
#define TOS_CPU_INT_DISABLE() do { cpu_cpsr = tos_cpu_cpsr_save(); } while (0)
#define TOS_CPU_INT_ENABLE() do { tos_cpu_cpsr_restore(cpu_cpsr); } while (0)

typedef struct k_task_st {
    k_stack_t *sp;
    k_prio_t prio;
} k_task_t;
typedef void (*k_task_entry_t)(void *arg);
k_err_t tos_knl_init(void);
k_err_t tos_knl_start(void);
void tos_knl_irq_enter(void);
void tos_knl_irq_leave(void);
k_err_t tos_knl_sched_lock(void);
k_err_t tos_knl_sched_unlock(void);
k_err_t tos_task_create(k_task_t *task, char *name, k_task_entry_t entry, void *arg, k_prio_t prio,
                        k_stack_t *stk_base, size_t stk_size, k_tick_t timeslice);
k_err_t tos_task_delay(k_tick_t delay);
typedef struct k_sem_st {
    uint32_t count;
} k_sem_t;
k_err_t tos_sem_create(k_sem_t *sem, uint32_t init_count);
k_err_t tos_sem_post(k_sem_t *sem);
k_err_t tos_sem_pend(k_sem_t *sem, k_tick_t timeout);

/* board code of these programs (not TencentOS): declared, defined elsewhere */
#define EXTI_PR1 (*(volatile uint32_t *)0x40010414U)
#define TIM2_SR (*(volatile uint32_t *)0x40000010U)
#define LPUART1_ISR (*(volatile uint32_t *)0x4000801CU)
#define LPUART1_RDR (*(volatile uint32_t *)0x40008024U)
void board_init(void);
int printf(const char *fmt, ...);
uint16_t flow_sensor_read(void);
void nbiot_send(const void *data, size_t len);
#endif
