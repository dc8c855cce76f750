/* CMSIS-Core (Cortex-M) subset, written for the v6 corpus with CMSIS's names (v7 adds the exclusive-access intrinsics).
 * Everything here is inline, with bodies, as in CMSIS's own core_cm*.h / cmsis_gcc.h.
 * The device header defines __NVIC_PRIO_BITS before including this one. */
#ifndef CMSIS_CORE_H
#define CMSIS_CORE_H
#include <stdint.h>
#ifndef __NVIC_PRIO_BITS
#define __NVIC_PRIO_BITS 4U
#endif
typedef int32_t IRQn_Type;
typedef struct {
    volatile uint32_t ISER[8]; uint32_t r0[24];
    volatile uint32_t ICER[8]; uint32_t r1[24];
    volatile uint32_t ISPR[8]; uint32_t r2[24];
    volatile uint32_t ICPR[8]; uint32_t r3[56];
    volatile uint8_t  IP[240];
} NVIC_Type;
typedef struct { volatile uint32_t CPUID, ICSR, VTOR, AIRCR; } SCB_Type;
#define NVIC ((NVIC_Type *)0xE000E100UL)
#define SCB  ((SCB_Type *)0xE000ED00UL)

static inline void __disable_irq(void) { __asm volatile ("cpsid i" ::: "memory"); }
static inline void __enable_irq(void) { __asm volatile ("cpsie i" ::: "memory"); }
static inline uint32_t __get_PRIMASK(void) { uint32_t r; __asm volatile ("mrs %0, primask" : "=r" (r)); return r; }
static inline void __set_PRIMASK(uint32_t v) { __asm volatile ("msr primask, %0" :: "r" (v) : "memory"); }
/* BASEPRI (not on Cortex-M0/M0+): masks every interrupt whose priority value is >= BASEPRI. */
static inline uint32_t __get_BASEPRI(void) { uint32_t r; __asm volatile ("mrs %0, basepri" : "=r" (r)); return r; }
static inline void __set_BASEPRI(uint32_t v) { __asm volatile ("msr basepri, %0" :: "r" (v) : "memory"); }
static inline void __DSB(void) { __asm volatile ("dsb 0xF" ::: "memory"); }
static inline void __ISB(void) { __asm volatile ("isb 0xF" ::: "memory"); }
static inline void __DMB(void) { __asm volatile ("dmb 0xF" ::: "memory"); }
static inline void __WFI(void) { __asm volatile ("wfi"); }
/* Exclusive access (Cortex-M3/M4): the local monitor is cleared on every exception entry and
 * return, so a STREX after an interrupt has run between it and its LDREX fails (returns 1). */
static inline uint32_t __LDREXW(volatile uint32_t *addr) { uint32_t r; __asm volatile ("ldrex %0, %1" : "=r" (r) : "Q" (*addr)); return r; }
static inline uint32_t __STREXW(uint32_t value, volatile uint32_t *addr) { uint32_t r; __asm volatile ("strex %0, %2, %1" : "=&r" (r), "=Q" (*addr) : "r" (value)); return r; }
static inline void __CLREX(void) { __asm volatile ("clrex" ::: "memory"); }

static inline void NVIC_EnableIRQ(IRQn_Type irq) { NVIC->ISER[((uint32_t)irq) >> 5] = 1UL << (((uint32_t)irq) & 31U); }
static inline void NVIC_DisableIRQ(IRQn_Type irq)
{
    NVIC->ICER[((uint32_t)irq) >> 5] = 1UL << (((uint32_t)irq) & 31U);
    __DSB();
    __ISB();
}
static inline void NVIC_ClearPendingIRQ(IRQn_Type irq) { NVIC->ICPR[((uint32_t)irq) >> 5] = 1UL << (((uint32_t)irq) & 31U); }
static inline void NVIC_SetPriority(IRQn_Type irq, uint32_t prio)
{
    NVIC->IP[(uint32_t)irq] = (uint8_t)((prio << (8U - __NVIC_PRIO_BITS)) & 0xFFU);
}
static inline void NVIC_SetPriorityGrouping(uint32_t group)
{
    SCB->AIRCR = (0x5FAUL << 16) | ((group & 7UL) << 8);
}
#endif
