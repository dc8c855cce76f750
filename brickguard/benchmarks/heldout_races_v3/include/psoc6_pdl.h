/* Infineon PSoC 6 (CM4 core) with the Peripheral Driver Library, trimmed: cy_sysint.h, cy_syslib.h
 * (Cy_SysLib_EnterCriticalSection saves PRIMASK and disables interrupts; the body of its
 * cy_syslib_gcc.S), cy_tcpwm_*.h, cy_scb_uart.h, cy_gpio.h declarations. */
#ifndef PSOC6_PDL_H
#define PSOC6_PDL_H

#include <stdbool.h>
#include <stdint.h>

typedef enum {
    SysTick_IRQn = -1,
    ioss_interrupts_gpio_0_IRQn = 0,
    ioss_interrupts_gpio_5_IRQn = 5,
    scb_5_interrupt_IRQn = 44,
    cpuss_interrupts_dw0_0_IRQn = 54,
    tcpwm_0_interrupts_0_IRQn = 90,
    tcpwm_0_interrupts_1_IRQn = 91,
    tcpwm_0_interrupts_2_IRQn = 92
} IRQn_Type;

#define __NVIC_PRIO_BITS 3U
#include "armv7m_core.h"

/* ---- cy_syslib.h ---- */
static inline uint32_t Cy_SysLib_EnterCriticalSection(void)
{
    uint32_t savedIntrStatus = __get_PRIMASK();
    __disable_irq();
    return savedIntrStatus;
}
static inline void Cy_SysLib_ExitCriticalSection(uint32_t savedIntrStatus)
{
    __set_PRIMASK(savedIntrStatus);
}
void Cy_SysLib_Delay(uint32_t milliseconds);

/* ---- cy_sysint.h: Cy_SysInt_Init sets the vector (userIsr) and the NVIC priority ---- */
typedef void (*cy_israddress)(void);
typedef struct {
    IRQn_Type intrSrc;
    uint32_t intrPriority; /* 0 (most urgent) .. 7 */
} cy_stc_sysint_t;
typedef enum { CY_SYSINT_SUCCESS = 0, CY_SYSINT_BAD_PARAM = 1 } cy_en_sysint_status_t;
cy_en_sysint_status_t Cy_SysInt_Init(const cy_stc_sysint_t *config, cy_israddress userIsr);

/* ---- cy_tcpwm_counter.h / cy_tcpwm_pwm.h ---- */
typedef struct { volatile uint32_t CTRL, CMD, INTR, INTR_MASKED; } TCPWM_Type;
#define TCPWM0 ((TCPWM_Type *)0x40380000UL)
#define CY_TCPWM_INT_ON_TC 1U
#define CY_TCPWM_INT_ON_CC 2U
uint32_t Cy_TCPWM_GetInterruptStatusMasked(TCPWM_Type const *base, uint32_t cntNum);
void Cy_TCPWM_ClearInterrupt(TCPWM_Type *base, uint32_t cntNum, uint32_t source);
void Cy_TCPWM_PWM_SetCompare0(TCPWM_Type *base, uint32_t cntNum, uint32_t compare0);
void Cy_TCPWM_PWM_SetPeriod0(TCPWM_Type *base, uint32_t cntNum, uint32_t period0);
uint32_t Cy_TCPWM_Counter_GetCounter(TCPWM_Type const *base, uint32_t cntNum);
uint32_t Cy_TCPWM_Counter_GetCapture(TCPWM_Type const *base, uint32_t cntNum);
void Cy_TCPWM_TriggerStart(TCPWM_Type *base, uint32_t counters);
void Cy_TCPWM_Enable_Multiple(TCPWM_Type *base, uint32_t counters);
void Cy_TCPWM_SetInterruptMask(TCPWM_Type *base, uint32_t cntNum, uint32_t mask);

/* ---- cy_scb_uart.h ---- */
typedef struct { volatile uint32_t CTRL, STATUS, RX_FIFO_RD, TX_FIFO_WR, INTR_RX, INTR_RX_MASKED; } CySCB_Type;
#define SCB5 ((CySCB_Type *)0x40650000UL)
#define CY_SCB_RX_INTR_NOT_EMPTY (1UL << 2)
#define CY_SCB_RX_INTR_OVERFLOW (1UL << 5)
uint32_t Cy_SCB_GetRxInterruptStatusMasked(CySCB_Type const *base);
void Cy_SCB_ClearRxInterrupt(CySCB_Type *base, uint32_t interruptMask);
uint32_t Cy_SCB_UART_Get(CySCB_Type const *base);
uint32_t Cy_SCB_UART_Put(CySCB_Type *base, uint32_t data);
void Cy_SCB_SetRxInterruptMask(CySCB_Type *base, uint32_t interruptMask);

/* ---- cy_gpio.h ---- */
typedef struct { volatile uint32_t OUT, OUT_CLR, OUT_SET, OUT_INV, IN, INTR; } GPIO_PRT_Type;
#define GPIO_PRT0 ((GPIO_PRT_Type *)0x40310000UL)
#define GPIO_PRT5 ((GPIO_PRT_Type *)0x40310280UL)
uint32_t Cy_GPIO_Read(GPIO_PRT_Type const *base, uint32_t pinNum);
void Cy_GPIO_ClearInterrupt(GPIO_PRT_Type *base, uint32_t pinNum);
void Cy_GPIO_Write(GPIO_PRT_Type *base, uint32_t pinNum, uint32_t value);

/* ---- cybsp.h ---- */
typedef uint32_t cy_rslt_t;
#define CY_RSLT_SUCCESS ((cy_rslt_t)0u)
cy_rslt_t cybsp_init(void);

#endif
