/* Keil RL-ARM RTX4 (RTL.h) on an STM32F103 (Cortex-M3, 4 priority bits), the parts this corpus
 * uses, and the STM32F10x register names its programs touch.
 * - Body-less, as in RTX_CM3.lib: os_sys_init (a macro over os_sys_init0), os_tsk_create,
 *   os_evt_wait_or/os_evt_set/isr_evt_set/os_evt_get/os_evt_clr, os_dly_wait, os_mut_*,
 *   tsk_lock/tsk_unlock. On Cortex-M, tsk_lock() disables the OS timer (SysTick) interrupt so no
 *   task switch happens; every other interrupt stays enabled. isr_evt_set may be called from an
 *   ISR.
 * - CMSIS core names from cm_core.h (inline). */
#ifndef RTL_H
#define RTL_H
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
typedef enum IRQn {
    SysTick_IRQn = -1,
    EXTI0_IRQn = 6,
    ADC1_2_IRQn = 18,
    TIM2_IRQn = 28,
    TIM3_IRQn = 29,
    USART1_IRQn = 37,
} IRQn_Type;
#define __NVIC_PRIO_BITS 4U
#define __CORTEX_M 3U
#include "cm_core.h"

typedef uint8_t U8;
typedef uint16_t U16;
typedef uint32_t U32;
typedef int32_t S32;
typedef uint8_t BIT;
typedef U32 OS_TID;
typedef U32 OS_RESULT;
typedef U32 OS_MUT[3];
#define __task
#define OS_R_OK 0U
#define OS_R_EVT 3U
#define OS_R_TMO 1U
void os_sys_init0(void (*task)(void), U32 prio_stksz, void *stk);
#define os_sys_init(tsk) os_sys_init0(tsk, 0U, NULL)
OS_TID os_tsk_create0(void (*task)(void), U32 prio_stksz, void *stk, void *argv);
#define os_tsk_create(tsk, prio) os_tsk_create0(tsk, prio, NULL, NULL)
OS_TID os_tsk_self(void);
void os_tsk_delete_self(void);
OS_RESULT os_evt_wait_or(U16 wait_flags, U16 timeout);
void os_evt_set(U16 event_flags, OS_TID task_id);
void isr_evt_set(U16 event_flags, OS_TID task_id);
void os_evt_clr(U16 clear_flags, OS_TID task_id);
U16 os_evt_get(void);
void os_dly_wait(U16 delay_time);
void os_itv_set(U16 interval_time);
void os_itv_wait(void);
void os_mut_init(OS_MUT mutex);
OS_RESULT os_mut_wait(OS_MUT mutex, U16 timeout);
OS_RESULT os_mut_release(OS_MUT mutex);
void tsk_lock(void);
void tsk_unlock(void);

#define USART1_SR (*(volatile U32 *)0x40013800U)
#define USART1_DR (*(volatile U32 *)0x40013804U)
#define TIM2_SR (*(volatile U32 *)0x40000010U)
#define TIM2_CNT (*(volatile U32 *)0x40000024U)
#define EXTI_PR (*(volatile U32 *)0x40010414U)
#define ADC1_SR (*(volatile U32 *)0x40012400U)
#define ADC1_JDR1 (*(volatile U32 *)0x4001243CU)
#define ADC1_JDR2 (*(volatile U32 *)0x40012440U)
#define ADC1_JDR3 (*(volatile U32 *)0x40012444U)
#define ADC1_JDR4 (*(volatile U32 *)0x40012448U)
#define ADC1_CR2 (*(volatile U32 *)0x40012408U)
#define USART_SR_RXNE (1U << 5)
#define ADC_SR_JEOC (1U << 2)
#define ADC_CR2_JSWSTART (1U << 21)
void board_init(void);
void lcd_print(int row, const char *fmt, ...);
void modbus_write_reg(U16 reg, U16 value);
#endif
