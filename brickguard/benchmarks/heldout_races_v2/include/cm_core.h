/* Cortex-M core intrinsics and NVIC calls as CMSIS names them, declared as plain functions so
 * the second held-out corpus parses without CMSIS. A device header defines IRQn_Type and
 * __NVIC_PRIO_BITS and then includes this one, as CMSIS device headers include core_cm4.h.
 * Written for this corpus. Priority encoding (as in CMSIS): NVIC_SetPriority takes the unshifted
 * level (0 .. (1 << __NVIC_PRIO_BITS) - 1) and shifts it into the implemented top bits;
 * __set_BASEPRI takes the register value, i.e. the level shifted left by (8 - __NVIC_PRIO_BITS);
 * BASEPRI masks every exception whose level is numerically >= its level; BASEPRI = 0 masks none. */
#ifndef HO2_CM_CORE_H
#define HO2_CM_CORE_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

void __enable_irq(void);
void __disable_irq(void);
uint32_t __get_PRIMASK(void);
void __set_PRIMASK(uint32_t primask);
uint32_t __get_BASEPRI(void);
void __set_BASEPRI(uint32_t basepri);
void __set_BASEPRI_MAX(uint32_t basepri);
uint32_t __LDREXW(volatile uint32_t *addr);
uint32_t __STREXW(uint32_t value, volatile uint32_t *addr);
void __CLREX(void);
void __DMB(void);
void __DSB(void);
void __ISB(void);
void __WFI(void);
void __NOP(void);

void NVIC_EnableIRQ(IRQn_Type irq);
void NVIC_DisableIRQ(IRQn_Type irq);
void NVIC_ClearPendingIRQ(IRQn_Type irq);
void NVIC_SetPriority(IRQn_Type irq, uint32_t priority);
uint32_t NVIC_GetPriority(IRQn_Type irq);
uint32_t SysTick_Config(uint32_t ticks);

#endif
