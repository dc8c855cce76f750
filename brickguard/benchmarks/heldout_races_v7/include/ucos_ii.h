/* Micrium uC/OS-II V2.86 subset with its ARM Cortex-M3 port (os_cpu.h / os_cpu_a.asm), on an
 * LPC1768 (Cortex-M3), written for this corpus with uC/OS-II's names. __NVIC_PRIO_BITS is 5.
 * Inline (bodies here): the CMSIS-Core intrinsics (cmsis_core.h); OS_CPU_SR_Save /
 *   OS_CPU_SR_Restore (as the port's os_cpu_a.asm: save PRIMASK and set it / write it back), hence
 *   OS_ENTER_CRITICAL() / OS_EXIT_CRITICAL() (OS_CRITICAL_METHOD 3, with a local `cpu_sr`).
 * Body-less kernel functions, declared only, with their documented effect:
 *   OSInit / OSStart: OSStart starts the highest-priority ready task and never returns.
 *   OSTaskCreate(task, arg, ptos, prio): a task; priorities are unique, 0 is the most urgent. The
 *     kernel is pre-emptive: a task made ready by an ISR, a post or a time-out runs as soon as it
 *     is the highest-priority ready one.
 *   OSIntEnter() / OSIntExit(): an ISR calls them first and last; OSIntExit switches to a
 *     higher-priority task the ISR made ready.
 *   OSSchedLock() / OSSchedUnlock(): stop / restart task switching; interrupts stay enabled and
 *     ISRs still run (only the switch to another task is deferred).
 *   OSTimeDly(ticks) / OSTimeDlyHMSM: block the calling task. OSTimeGet(): the tick count.
 *   OSSemCreate / OSSemPend(sem, timeout, &err) (blocks) / OSSemPost(sem) (ISR-safe).
 *   OSQCreate / OSQPost / OSQPend: message queues (ISR-safe post).
 *   OSTmrCreate(dly, period, opt, callback, arg, name, &err) / OSTmrStart: a software timer;
 *     callback(ptmr, arg) runs in the timer task OS_TmrTask, priority OS_TASK_TMR_PRIO (here 4),
 *     one callback at a time.
 *   BSP_IntVectSet(id, isr): isr runs as that interrupt's handler (the BSP calls it from the
 *     vector). */
#ifndef UCOS_II_H
#define UCOS_II_H
#define __NVIC_PRIO_BITS 5U
#include "cmsis_core.h"
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

typedef uint8_t INT8U;
typedef int8_t INT8S;
typedef uint16_t INT16U;
typedef uint32_t INT32U;
typedef int32_t INT32S;
typedef uint8_t BOOLEAN;
typedef uint32_t OS_STK;
typedef uint32_t OS_CPU_SR;
typedef struct os_event OS_EVENT;
typedef struct os_tmr OS_TMR;
typedef void (*OS_TMR_CALLBACK)(void *ptmr, void *parg);
#define OS_NO_ERR 0U
#define OS_ERR_NONE 0U
#define OS_TASK_TMR_PRIO 4U
#define OS_TMR_OPT_PERIODIC 2U
#define OS_TMR_OPT_ONE_SHOT 1U
#define OS_TICKS_PER_SEC 1000U
#define OS_CRITICAL_METHOD 3U

static inline OS_CPU_SR OS_CPU_SR_Save(void) { OS_CPU_SR sr = __get_PRIMASK(); __disable_irq(); return sr; }
static inline void OS_CPU_SR_Restore(OS_CPU_SR sr) { __set_PRIMASK(sr); }
#define OS_ENTER_CRITICAL() do { cpu_sr = OS_CPU_SR_Save(); } while (0)
#define OS_EXIT_CRITICAL() do { OS_CPU_SR_Restore(cpu_sr); } while (0)

void OSInit(void);
void OSStart(void);
INT8U OSTaskCreate(void (*task)(void *p_arg), void *p_arg, OS_STK *ptos, INT8U prio);
void OSIntEnter(void);
void OSIntExit(void);
void OSSchedLock(void);
void OSSchedUnlock(void);
void OSTimeDly(INT16U ticks);
INT8U OSTimeDlyHMSM(INT8U hours, INT8U minutes, INT8U seconds, INT16U ms);
INT32U OSTimeGet(void);
OS_EVENT *OSSemCreate(INT16U cnt);
void OSSemPend(OS_EVENT *pevent, INT16U timeout, INT8U *perr);
INT8U OSSemPost(OS_EVENT *pevent);
OS_EVENT *OSQCreate(void **start, INT16U size);
INT8U OSQPost(OS_EVENT *pevent, void *pmsg);
void *OSQPend(OS_EVENT *pevent, INT16U timeout, INT8U *perr);
OS_TMR *OSTmrCreate(INT32U dly, INT32U period, INT8U opt, OS_TMR_CALLBACK callback, void *callback_arg, INT8U *pname, INT8U *perr);
BOOLEAN OSTmrStart(OS_TMR *ptmr, INT8U *perr);
void BSP_Init(void);
void BSP_IntVectSet(INT8U int_id, void (*isr)(void));
void BSP_IntEn(INT8U int_id);
void BSP_IntPrioSet(INT8U int_id, INT8U prio);
void BSP_LED_Toggle(INT8U led);
void APP_TRACE(const char *fmt, ...);

/* LPC1768 registers the programs touch. */
typedef struct { volatile uint32_t IR, TCR, TC, PR, PC, MCR, MR0, MR1, MR2, MR3, CCR, CR0, CR1; } LPC_TIM_TypeDef;
typedef struct { volatile uint32_t RBR_THR, IER, IIR, LCR, r0, LSR; } LPC_UART_TypeDef;
typedef struct { volatile uint32_t ADCR, ADGDR, r0, ADINTEN, ADDR[8], ADSTAT; } LPC_ADC_TypeDef;
typedef struct { volatile uint32_t IR, TCR, TC, PR, PC, MCR, MR0, MR1, MR2, MR3, CCR, CR0, CR1, CR2, CR3, r0, MR4, MR5, MR6, PCR, LER; } LPC_PWM_TypeDef;
#define LPC_TIM0 ((LPC_TIM_TypeDef *)0x40004000UL)
#define LPC_TIM1 ((LPC_TIM_TypeDef *)0x40008000UL)
#define LPC_UART0 ((LPC_UART_TypeDef *)0x4000C000UL)
#define LPC_ADC ((LPC_ADC_TypeDef *)0x40034000UL)
#define LPC_PWM1 ((LPC_PWM_TypeDef *)0x40018000UL)
#define BSP_INT_ID_TMR0 1U
#define BSP_INT_ID_TMR1 2U
#define BSP_INT_ID_UART0 5U
#define BSP_INT_ID_ADC 22U
#define BSP_INT_ID_EINT0 18U
#define BSP_INT_ID_PWM1 9U
#endif
