/* HDSC / XHSC HC32F460 Device Driver Library (DDL 2.x) subset (Cortex-M4), written for this corpus
 * with the DDL's names. __NVIC_PRIO_BITS is 4; DDL_IRQ_PRIO_00 (0) is the highest, 15 the lowest.
 * Inline (bodies here): the CMSIS-Core intrinsics (cmsis_core.h).
 * Body-less library functions, declared only, with their documented effect:
 *   INTC_IrqSignIn(&cfg): routes the peripheral event cfg.enIntSrc to the NVIC vector cfg.enIRQn
 *     and installs cfg.pfnCallback as that vector's handler (it runs in interrupt context); it does
 *     not enable the vector: NVIC_SetPriority / NVIC_EnableIRQ do.
 *   TMR0_* / USART_* / ADC_*: register access, no interrupt masking. */
#ifndef HC32_DDL_H
#define HC32_DDL_H
#define __NVIC_PRIO_BITS 4U
#include "cmsis_core.h"
#include <stdint.h>
#include <stddef.h>
#define LL_OK 0
#define DDL_IRQ_PRIO_00 0U
#define DDL_IRQ_PRIO_02 2U
#define DDL_IRQ_PRIO_03 3U
#define DDL_IRQ_PRIO_05 5U
#define DDL_IRQ_PRIO_08 8U
#define DDL_IRQ_PRIO_DEFAULT 15U
#define INT000_IRQn 0
#define INT001_IRQn 1
#define INT002_IRQn 2
#define INT003_IRQn 3
typedef enum { INT_SRC_TMR0_1_CMP_A = 1, INT_SRC_USART1_RI = 2, INT_SRC_ADC1_EOCA = 3, INT_SRC_TMR0_2_CMP_A = 4 } en_int_src_t;
typedef void (*func_ptr_t)(void);
typedef struct { en_int_src_t enIntSrc; IRQn_Type enIRQn; func_ptr_t pfnCallback; } stc_irq_signin_config_t;
int32_t INTC_IrqSignIn(const stc_irq_signin_config_t *cfg);
typedef struct { volatile uint32_t CNTAR, CMPAR, BCONR, STFLR; } CM_TMR0_TypeDef;
typedef struct { volatile uint32_t SR, DR, BRR, CR1; } CM_USART_TypeDef;
typedef struct { volatile uint32_t STR, CR0, ISR; volatile uint16_t DR[16]; } CM_ADC_TypeDef;
#define CM_TMR0_1 ((CM_TMR0_TypeDef *)0x40024000UL)
#define CM_TMR0_2 ((CM_TMR0_TypeDef *)0x40024400UL)
#define CM_USART1 ((CM_USART_TypeDef *)0x4001D000UL)
#define CM_ADC1 ((CM_ADC_TypeDef *)0x40040000UL)
#define TMR0_CH_A 0U
#define TMR0_FLAG_CMP_A 1U
#define USART_FLAG_RX_FULL 0x20U
#define ADC_FLAG_EOCA 1U
void TMR0_ClearStatus(CM_TMR0_TypeDef *t, uint32_t flag);
void TMR0_Start(CM_TMR0_TypeDef *t, uint32_t ch);
uint16_t USART_ReadData(const CM_USART_TypeDef *u);
void ADC_ClearStatus(CM_ADC_TypeDef *a, uint8_t flag);
uint16_t ADC_GetValue(const CM_ADC_TypeDef *a, uint8_t ch);
void ADC_Start(CM_ADC_TypeDef *a);
void board_init(void);                 /* clocks, pins, peripherals; enables no interrupt */
void pwm_set_duty(uint16_t permille);  /* writes the TimerA compare register */
void uart2_print(const char *fmt, ...);
void process_byte(uint8_t b);
#endif
