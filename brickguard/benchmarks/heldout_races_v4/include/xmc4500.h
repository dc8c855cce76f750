/* Infineon XMC4500 with the XMC Peripheral Library (xmc_ccu4.h, xmc_vadc.h, xmc_eru.h,
 * xmc_gpio.h), the parts this corpus uses. 6 priority bits (__NVIC_PRIO_BITS 6): priorities are
 * set with CMSIS NVIC_SetPriority, usually through NVIC_EncodePriority(grouping, preempt, sub);
 * only the pre-emption part decides preemption. The library has no critical-section API:
 * application code uses the CMSIS __disable_irq/__set_BASEPRI. The inline library functions
 * below are inline in the real headers too. */
#ifndef XMC4500_H
#define XMC4500_H

typedef enum {
    SysTick_IRQn = -1,
    ERU0_0_IRQn = 1,
    VADC0_G0_0_IRQn = 18,
    CCU40_0_IRQn = 44,
    CCU40_1_IRQn = 45,
} IRQn_Type;
#define __NVIC_PRIO_BITS 6U
#define __CORTEX_M 4U
#include "cm_core.h"

typedef struct {
    __IO uint32_t INS, CMC, SRS, TCST, TCSET, TCCLR, TC, PSL, DIT, DITS, PSC, FPC, FPCS, PR, PRS,
        CR, CRS;
    uint32_t RESERVED[12];
    __IO uint32_t TIMER;
    uint32_t RESERVED2[16];
    __IO uint32_t INTS, INTE, SRS2, SWS, SWR;
} CCU4_CC4_TypeDef;
#define CCU40_CC40 ((CCU4_CC4_TypeDef *)0x4000C100UL)
#define CCU40_CC41 ((CCU4_CC4_TypeDef *)0x4000C200UL)
typedef enum { XMC_CCU4_SLICE_IRQ_ID_PERIOD_MATCH = 0U, XMC_CCU4_SLICE_IRQ_ID_COMPARE_MATCH_UP = 2U } XMC_CCU4_SLICE_IRQ_ID_t;
static inline void XMC_CCU4_SLICE_ClearEvent(CCU4_CC4_TypeDef *const slice, const XMC_CCU4_SLICE_IRQ_ID_t event)
{
    slice->SWR |= ((uint32_t)1) << ((uint32_t)event);
}
static inline void XMC_CCU4_SLICE_SetTimerCompareMatch(CCU4_CC4_TypeDef *const slice, const uint16_t compare_val)
{
    slice->CRS = (uint32_t)compare_val;
}
static inline void XMC_CCU4_SLICE_StartTimer(CCU4_CC4_TypeDef *const slice) { slice->TCSET = 1U; }

typedef struct { __IO uint32_t RES[16]; } VADC_G_TypeDef;
#define VADC_G0 ((VADC_G_TypeDef *)0x40004400UL)
static inline uint32_t XMC_VADC_GROUP_GetResult(VADC_G_TypeDef *const group_ptr, const uint32_t res_reg)
{
    return (uint32_t)(group_ptr->RES[res_reg] & 0xFFFFU);
}

typedef struct { __IO uint32_t EXISEL; uint32_t R[3]; __IO uint32_t EXICON[4]; } XMC_ERU_t;
#define XMC_ERU0 ((XMC_ERU_t *)0x50004800UL)
static inline void XMC_ERU_ETL_ClearStatusFlag(XMC_ERU_t *const eru, const uint8_t channel)
{
    eru->EXICON[channel] &= ~(1UL << 7);
}

typedef struct { __IO uint32_t OUT, OMR, R[2], IOCR0, IOCR4, IOCR8, IOCR12, R2, IN; } XMC_GPIO_PORT_t;
#define XMC_GPIO_PORT1 ((XMC_GPIO_PORT_t *)0x48028100UL)
static inline uint32_t XMC_GPIO_GetInput(XMC_GPIO_PORT_t *const port, const uint8_t pin)
{
    return (((port->IN) >> pin) & 0x1U);
}
static inline void XMC_GPIO_SetOutputHigh(XMC_GPIO_PORT_t *const port, const uint8_t pin)
{
    port->OMR = (uint32_t)0x1U << pin;
}

void SystemCoreClockUpdate(void);
void heater_set(uint32_t permille);
void led_show(uint32_t level);
void door_alarm(void);
uint32_t cost_of_next_job(void);
#endif
