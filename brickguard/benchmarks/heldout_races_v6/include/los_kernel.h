/* Huawei LiteOS (kernel API, LiteOS 5) subset on an STM32F429 (Cortex-M4), written for this corpus
 * with LiteOS's names. __NVIC_PRIO_BITS is 4. Tasks: priority 0 is the highest.
 * Inline (bodies here): the CMSIS-Core intrinsics (cmsis_core.h).
 * Body-less kernel functions, declared only, with their documented effect:
 *   LOS_IntLock(): sets PRIMASK (masks every interrupt) and returns the previous state;
 *     LOS_IntRestore(save) puts it back.
 *   LOS_TaskLock() / LOS_TaskUnlock(): lock the scheduler: no other task runs until unlocked; no
 *     interrupt is masked and hardware interrupts keep running.
 *   LOS_HwiCreate(num, prio, mode, handler, arg): installs handler as the interrupt's handler, runs
 *     in interrupt context, and enables the interrupt (LOS_HwiEnable) at once.
 *   LOS_SwtmrCreate / LOS_SwtmrStart: software timers; every timer's callback runs in the one
 *     software-timer task (priority 0, the highest task priority), one callback at a time.
 *   LOS_TaskCreate: creates a task with TSK_INIT_PARAM_S's usTaskPrio; it may run at once.
 *   LOS_TaskDelay(ticks): blocks the calling task. */
#ifndef LOS_KERNEL_H
#define LOS_KERNEL_H
#define __NVIC_PRIO_BITS 4U
#include "cmsis_core.h"
#include <stdint.h>
#include <stddef.h>
typedef uint32_t UINT32;
typedef uint16_t UINT16;
typedef uint8_t UINT8;
typedef uintptr_t UINTPTR;
typedef void VOID;
typedef char CHAR;
#define LOS_OK 0U
typedef VOID *(*TSK_ENTRY_FUNC)(UINTPTR param1);
typedef struct { TSK_ENTRY_FUNC pfnTaskEntry; UINT16 usTaskPrio; UINT32 uwStackSize; CHAR *pcName; } TSK_INIT_PARAM_S;
typedef VOID (*SWTMR_PROC_FUNC)(UINTPTR arg);
typedef VOID (*HWI_PROC_FUNC)(VOID);
#define LOS_SWTMR_MODE_PERIOD 1
#define LOS_SWTMR_MODE_ONCE 0
UINT32 LOS_IntLock(VOID);
VOID LOS_IntRestore(UINT32 save);
VOID LOS_TaskLock(VOID);
VOID LOS_TaskUnlock(VOID);
UINT32 LOS_HwiCreate(UINT32 num, UINT16 prio, UINT16 mode, HWI_PROC_FUNC handler, UINTPTR arg);
UINT32 LOS_SwtmrCreate(UINT32 interval, UINT8 mode, SWTMR_PROC_FUNC handler, UINT16 *swtmrId, UINTPTR arg);
UINT32 LOS_SwtmrStart(UINT16 swtmrId);
UINT32 LOS_TaskCreate(UINT32 *taskId, TSK_INIT_PARAM_S *init);
UINT32 LOS_TaskDelay(UINT32 tick);
UINT32 LOS_KernelInit(VOID);
UINT32 LOS_Start(VOID);
enum { EXTI3_IRQn = 9, TIM4_IRQn = 30, USART3_IRQn = 39 };
typedef struct { volatile uint32_t IMR, EMR, RTSR, FTSR, SWIER, PR; } EXTI_TypeDef;
#define EXTI ((EXTI_TypeDef *)0x40013C00UL)
VOID board_init(VOID);
VOID valve_set(UINT32 percent);      /* drives the valve PWM */
VOID log_printf(const CHAR *fmt, ...);
#endif
