/* Micrium uC/OS-III with uC/CPU (os.h, cpu.h, cpu_core.h of the ARMv7-M port), on an STM32F746,
 * the parts this corpus uses. 4 priority bits.
 * - CPU_SR_ALLOC() declares cpu_sr; CPU_CRITICAL_ENTER() saves BASEPRI and raises it to
 *   CPU_CFG_KA_IPL_BOUNDARY (level 4, BASEPRI 0x40); CPU_CRITICAL_EXIT() restores it
 *   (CPU_SR_Save/CPU_SR_Restore are assembly in cpu_a.s, inline here with the same effect).
 *   ISRs at levels 0..3 are non-kernel-aware: never masked by the kernel, they must not call it.
 * - A kernel-aware ISR brackets its body with OSIntEnter()/OSIntExit().
 * - OSSchedLock() stops the scheduler only: interrupts still run. */
#ifndef UCOS3_H
#define UCOS3_H

typedef enum {
    SysTick_IRQn = -1,
    EXTI15_10_IRQn = 40,
    CAN1_RX0_IRQn = 20,
    TIM1_UP_TIM10_IRQn = 25,
    TIM7_IRQn = 55,
    USART6_IRQn = 71,
} IRQn_Type;
#define __NVIC_PRIO_BITS 4U
#define __CORTEX_M 7U
#include "cm_core.h"

typedef uint32_t CPU_SR;
typedef uint32_t CPU_INT32U;
typedef uint16_t CPU_INT16U;
typedef uint8_t CPU_INT08U;
typedef uint32_t CPU_STK;
typedef uint32_t CPU_STK_SIZE;
typedef void *CPU_VOID;
#define CPU_CFG_KA_IPL_BOUNDARY 4U
#define CPU_CFG_NVIC_PRIO_BITS 4U

static inline CPU_SR CPU_SR_Save(CPU_SR new_basepri)
{
    CPU_SR old = __get_BASEPRI();
    __set_BASEPRI(new_basepri);
    __DSB();
    __ISB();
    return old;
}
static inline void CPU_SR_Restore(CPU_SR cpu_sr)
{
    __set_BASEPRI(cpu_sr);
    __DSB();
    __ISB();
}
#define CPU_SR_ALLOC() CPU_SR cpu_sr = (CPU_SR)0
#define CPU_INT_DIS() do { cpu_sr = CPU_SR_Save(CPU_CFG_KA_IPL_BOUNDARY << (8U - CPU_CFG_NVIC_PRIO_BITS)); } while (0)
#define CPU_INT_EN() do { CPU_SR_Restore(cpu_sr); } while (0)
#define CPU_CRITICAL_ENTER() do { CPU_INT_DIS(); } while (0)
#define CPU_CRITICAL_EXIT() do { CPU_INT_EN(); } while (0)

typedef enum { OS_ERR_NONE = 0 } OS_ERR;
typedef uint32_t OS_TICK;
typedef uint8_t OS_PRIO;
typedef uint16_t OS_OPT;
typedef uint32_t CPU_TS;
typedef uint16_t OS_MSG_QTY;
#define OS_OPT_TIME_DLY 0x0000U
#define OS_OPT_TASK_STK_CHK 0x0001U
#define OS_OPT_POST_NONE 0x0000U
#define OS_OPT_PEND_BLOCKING 0x0000U
typedef void (*OS_TASK_PTR)(void *p_arg);
typedef struct os_tcb { CPU_STK *StkPtr; OS_PRIO Prio; } OS_TCB;
void OSInit(OS_ERR *p_err);
void OSStart(OS_ERR *p_err);
void OSTaskCreate(OS_TCB *p_tcb, char *p_name, OS_TASK_PTR p_task, void *p_arg, OS_PRIO prio,
                  CPU_STK *p_stk_base, CPU_STK_SIZE stk_limit, CPU_STK_SIZE stk_size,
                  OS_MSG_QTY q_size, OS_TICK time_quanta, void *p_ext, OS_OPT opt, OS_ERR *p_err);
void OSTimeDly(OS_TICK dly, OS_OPT opt, OS_ERR *p_err);
void OSSchedLock(OS_ERR *p_err);
void OSSchedUnlock(OS_ERR *p_err);
void OSIntEnter(void);
void OSIntExit(void);
CPU_INT32U OSTaskSemPost(OS_TCB *p_tcb, OS_OPT opt, OS_ERR *p_err);
CPU_INT32U OSTaskSemPend(OS_TICK timeout, OS_OPT opt, CPU_TS *p_ts, OS_ERR *p_err);

typedef struct { __IO uint32_t SR, CR1, CR2, CR3, BRR, GTPR, RTOR, RQR, ISR, ICR, RDR, TDR; } USART_TypeDef;
#define USART6 ((USART_TypeDef *)0x40011400UL)
typedef struct { __IO uint32_t CR1, CR2, SMCR, DIER, SR, EGR, CCMR1, CCMR2, CCER, CNT, PSC, ARR, RCR, CCR1, CCR2; } TIM_TypeDef;
#define TIM1 ((TIM_TypeDef *)0x40010000UL)
#define TIM7 ((TIM_TypeDef *)0x40001400UL)
typedef struct { __IO uint32_t IMR, EMR, RTSR, FTSR, SWIER, PR; } EXTI_TypeDef;
#define EXTI ((EXTI_TypeDef *)0x40013C00UL)
typedef struct { __IO uint32_t RIR, RDTR, RDLR, RDHR; __IO uint32_t RF0R; } CAN_RX_TypeDef;
#define CAN1_RX ((CAN_RX_TypeDef *)0x400065B0UL)

void can_forward(uint32_t id);
uint32_t credits_earned(void);
uint32_t period_for_freq(uint32_t hz);
uint32_t freq_request(void);
void console_putc(uint8_t c);
void fault_log(uint32_t n);
#endif
