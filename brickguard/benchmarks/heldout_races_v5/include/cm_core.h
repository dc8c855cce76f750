/* Cortex-M core access in the CMSIS names (core_cm4.h / core_cm0plus.h / cmsis_gcc.h), reduced to
 * what the programs of this corpus use. A device header defines IRQn_Type, __NVIC_PRIO_BITS and
 * __CORTEX_M (0 for an M0+, 3 or 4 otherwise) before including this one. */
#ifndef CM_CORE_H
#define CM_CORE_H
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

#define __STATIC_FORCEINLINE static inline __attribute__((always_inline))
#define __IO volatile
#define __I volatile const
#define __O volatile

__STATIC_FORCEINLINE void __enable_irq(void) { __asm volatile("cpsie i" : : : "memory"); }
__STATIC_FORCEINLINE void __disable_irq(void) { __asm volatile("cpsid i" : : : "memory"); }
__STATIC_FORCEINLINE uint32_t __get_PRIMASK(void)
{
    uint32_t result;
    __asm volatile("MRS %0, primask" : "=r"(result) : : "memory");
    return result;
}
__STATIC_FORCEINLINE void __set_PRIMASK(uint32_t priMask)
{
    __asm volatile("MSR primask, %0" : : "r"(priMask) : "memory");
}
__STATIC_FORCEINLINE void __DMB(void) { __asm volatile("dmb 0xF" : : : "memory"); }
__STATIC_FORCEINLINE void __DSB(void) { __asm volatile("dsb 0xF" : : : "memory"); }
__STATIC_FORCEINLINE void __ISB(void) { __asm volatile("isb 0xF" : : : "memory"); }
__STATIC_FORCEINLINE void __WFI(void) { __asm volatile("wfi" : : : "memory"); }
__STATIC_FORCEINLINE void __WFE(void) { __asm volatile("wfe" : : : "memory"); }

#if __CORTEX_M >= 3
__STATIC_FORCEINLINE uint32_t __get_BASEPRI(void)
{
    uint32_t result;
    __asm volatile("MRS %0, basepri" : "=r"(result));
    return result;
}
__STATIC_FORCEINLINE void __set_BASEPRI(uint32_t basePri)
{
    __asm volatile("MSR basepri, %0" : : "r"(basePri) : "memory");
}
__STATIC_FORCEINLINE void __set_BASEPRI_MAX(uint32_t basePri)
{
    __asm volatile("MSR basepri_max, %0" : : "r"(basePri) : "memory");
}
__STATIC_FORCEINLINE uint32_t __LDREXW(volatile uint32_t *addr)
{
    uint32_t result;
    __asm volatile("ldrex %0, %1" : "=r"(result) : "Q"(*addr));
    return result;
}
__STATIC_FORCEINLINE uint32_t __STREXW(uint32_t value, volatile uint32_t *addr)
{
    uint32_t result;
    __asm volatile("strex %0, %2, %1" : "=&r"(result), "=Q"(*addr) : "r"(value));
    return result;
}
__STATIC_FORCEINLINE void __CLREX(void) { __asm volatile("clrex" : : : "memory"); }
#endif

typedef struct {
    __IO uint32_t ISER[8U];
    uint32_t RESERVED0[24U];
    __IO uint32_t ICER[8U];
    uint32_t RESERVED1[24U];
    __IO uint32_t ISPR[8U];
    uint32_t RESERVED2[24U];
    __IO uint32_t ICPR[8U];
    uint32_t RESERVED3[24U];
    __IO uint32_t IABR[8U];
    uint32_t RESERVED4[56U];
    __IO uint8_t IP[240U];
} NVIC_Type;

typedef struct {
    __I uint32_t CPUID;
    __IO uint32_t ICSR;
    __IO uint32_t VTOR;
    __IO uint32_t AIRCR;
    __IO uint32_t SCR;
    __IO uint32_t CCR;
    __IO uint8_t SHP[12U];
} SCB_Type;

#define NVIC ((NVIC_Type *)0xE000E100UL)
#define SCB ((SCB_Type *)0xE000ED00UL)

__STATIC_FORCEINLINE void NVIC_EnableIRQ(IRQn_Type IRQn)
{
    if ((int32_t)IRQn >= 0) {
        __asm volatile("" : : : "memory");
        NVIC->ISER[((uint32_t)IRQn) >> 5UL] = (uint32_t)(1UL << (((uint32_t)IRQn) & 0x1FUL));
        __asm volatile("" : : : "memory");
    }
}
__STATIC_FORCEINLINE void NVIC_DisableIRQ(IRQn_Type IRQn)
{
    if ((int32_t)IRQn >= 0) {
        NVIC->ICER[((uint32_t)IRQn) >> 5UL] = (uint32_t)(1UL << (((uint32_t)IRQn) & 0x1FUL));
        __DSB();
        __ISB();
    }
}
__STATIC_FORCEINLINE void NVIC_ClearPendingIRQ(IRQn_Type IRQn)
{
    if ((int32_t)IRQn >= 0) {
        NVIC->ICPR[((uint32_t)IRQn) >> 5UL] = (uint32_t)(1UL << (((uint32_t)IRQn) & 0x1FUL));
    }
}
/* CMSIS: the priority is the unshifted level (0 .. 2^__NVIC_PRIO_BITS - 1). */
__STATIC_FORCEINLINE void NVIC_SetPriority(IRQn_Type IRQn, uint32_t priority)
{
    if ((int32_t)IRQn >= 0) {
        NVIC->IP[((uint32_t)IRQn)] = (uint8_t)((priority << (8U - __NVIC_PRIO_BITS)) & 0xFFUL);
    } else {
        SCB->SHP[(((uint32_t)IRQn) & 0xFUL) - 4UL] =
            (uint8_t)((priority << (8U - __NVIC_PRIO_BITS)) & 0xFFUL);
    }
}

#if __CORTEX_M >= 3
__STATIC_FORCEINLINE void NVIC_SetPriorityGrouping(uint32_t PriorityGroup)
{
    uint32_t reg_value = SCB->AIRCR;
    reg_value &= ~((uint32_t)(0xFFFFUL << 16U) | (7UL << 8U));
    reg_value = reg_value | (0x5FAUL << 16U) | ((PriorityGroup & 7UL) << 8U);
    SCB->AIRCR = reg_value;
}
__STATIC_FORCEINLINE uint32_t NVIC_GetPriorityGrouping(void)
{
    return (uint32_t)((SCB->AIRCR & (7UL << 8U)) >> 8U);
}
/* CMSIS: a pre-emption priority and a sub-priority packed for the given grouping; only the
 * pre-emption part decides whether one handler preempts another. */
__STATIC_FORCEINLINE uint32_t NVIC_EncodePriority(uint32_t PriorityGroup, uint32_t PreemptPriority,
                                                  uint32_t SubPriority)
{
    uint32_t PriorityGroupTmp = (PriorityGroup & 7UL);
    uint32_t PreemptPriorityBits =
        ((7UL - PriorityGroupTmp) > (uint32_t)(__NVIC_PRIO_BITS)) ? (uint32_t)(__NVIC_PRIO_BITS)
                                                                  : (uint32_t)(7UL - PriorityGroupTmp);
    uint32_t SubPriorityBits = ((PriorityGroupTmp + (uint32_t)(__NVIC_PRIO_BITS)) < (uint32_t)7UL)
                                   ? (uint32_t)0UL
                                   : (uint32_t)((PriorityGroupTmp - 7UL) + (uint32_t)(__NVIC_PRIO_BITS));
    return (((PreemptPriority & (uint32_t)((1UL << (PreemptPriorityBits)) - 1UL)) << SubPriorityBits) |
            ((SubPriority & (uint32_t)((1UL << (SubPriorityBits)) - 1UL))));
}
#endif

#endif
