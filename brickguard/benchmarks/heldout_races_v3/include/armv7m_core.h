/* Cortex-M core access, with the names and bodies of CMSIS core_cm4.h / cmsis_gcc.h (trimmed).
 * A device header defines IRQn_Type and __NVIC_PRIO_BITS and then includes this file. */
#ifndef ARMV7M_CORE_H
#define ARMV7M_CORE_H

#include <stdint.h>

#define __IM  volatile const
#define __IOM volatile
#define __STATIC_FORCEINLINE static inline __attribute__((always_inline))
#define __COMPILER_BARRIER() __asm volatile("" ::: "memory")

typedef struct {
    __IOM uint32_t ISER[8U];
    uint32_t RESERVED0[24U];
    __IOM uint32_t ICER[8U];
    uint32_t RESERVED1[24U];
    __IOM uint32_t ISPR[8U];
    uint32_t RESERVED2[24U];
    __IOM uint32_t ICPR[8U];
    uint32_t RESERVED3[24U];
    __IOM uint32_t IABR[8U];
    uint32_t RESERVED4[56U];
    __IOM uint8_t IP[240U];
} NVIC_Type;

#define NVIC ((NVIC_Type *)0xE000E100UL)

__STATIC_FORCEINLINE void __enable_irq(void) { __asm volatile("cpsie i" : : : "memory"); }
__STATIC_FORCEINLINE void __disable_irq(void) { __asm volatile("cpsid i" : : : "memory"); }

__STATIC_FORCEINLINE uint32_t __get_PRIMASK(void)
{
    uint32_t result;
    __asm volatile("MRS %0, primask" : "=r"(result)::"memory");
    return result;
}

__STATIC_FORCEINLINE void __set_PRIMASK(uint32_t priMask)
{
    __asm volatile("MSR primask, %0" : : "r"(priMask) : "memory");
}

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

__STATIC_FORCEINLINE void __DMB(void) { __asm volatile("dmb 0xF" ::: "memory"); }
__STATIC_FORCEINLINE void __DSB(void) { __asm volatile("dsb 0xF" ::: "memory"); }
__STATIC_FORCEINLINE void __ISB(void) { __asm volatile("isb 0xF" ::: "memory"); }
__STATIC_FORCEINLINE void __WFI(void) { __asm volatile("wfi"); }

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

__STATIC_FORCEINLINE void __CLREX(void) { __asm volatile("clrex" ::: "memory"); }

__STATIC_FORCEINLINE void NVIC_EnableIRQ(IRQn_Type IRQn)
{
    if ((int32_t)(IRQn) >= 0) {
        __COMPILER_BARRIER();
        NVIC->ISER[(((uint32_t)IRQn) >> 5UL)] = (uint32_t)(1UL << (((uint32_t)IRQn) & 0x1FUL));
        __COMPILER_BARRIER();
    }
}

__STATIC_FORCEINLINE void NVIC_DisableIRQ(IRQn_Type IRQn)
{
    if ((int32_t)(IRQn) >= 0) {
        NVIC->ICER[(((uint32_t)IRQn) >> 5UL)] = (uint32_t)(1UL << (((uint32_t)IRQn) & 0x1FUL));
        __DSB();
        __ISB();
    }
}

__STATIC_FORCEINLINE void NVIC_SetPendingIRQ(IRQn_Type IRQn)
{
    if ((int32_t)(IRQn) >= 0) {
        NVIC->ISPR[(((uint32_t)IRQn) >> 5UL)] = (uint32_t)(1UL << (((uint32_t)IRQn) & 0x1FUL));
    }
}

/* Takes the unshifted priority level (0 = most urgent), as CMSIS does. */
__STATIC_FORCEINLINE void NVIC_SetPriority(IRQn_Type IRQn, uint32_t priority)
{
    if ((int32_t)(IRQn) >= 0) {
        NVIC->IP[((uint32_t)IRQn)] = (uint8_t)((priority << (8U - __NVIC_PRIO_BITS)) & (uint32_t)0xFFUL);
    }
}

#endif
