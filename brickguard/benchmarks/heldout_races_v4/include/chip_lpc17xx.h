/* NXP LPCOpen for the LPC1769 (chip.h: timer_17xx_40xx.h, gpdma_17xx_40xx.h, uart_17xx_40xx.h),
 * the parts this corpus uses. Cortex-M3, 5 priority bits. Chip_TIMER_* register helpers are
 * inline in the real headers too; Chip_GPDMA_* are functions in gpdma_17xx_40xx.c:
 * Chip_GPDMA_Transfer() programs a channel and starts it, Chip_GPDMA_Interrupt() (called from the
 * application's DMA_IRQHandler) clears the channel's flags and returns SUCCESS on its terminal
 * count. */
#ifndef CHIP_LPC17XX_H
#define CHIP_LPC17XX_H

typedef enum {
    SysTick_IRQn = -1,
    TIMER0_IRQn = 1,
    TIMER1_IRQn = 2,
    UART0_IRQn = 5,
    ADC_IRQn = 22,
    DMA_IRQn = 26,
} IRQn_Type;
#define __NVIC_PRIO_BITS 5U
#define __CORTEX_M 3U
#include "cm_core.h"

typedef enum { ERROR = 0, SUCCESS = !ERROR } Status;

typedef struct {
    __IO uint32_t IR, TCR, TC, PR, PC, MCR, MR[4], CCR, CR[4], EMR, RESERVED0[12], CTCR;
} LPC_TIMER_T;
#define LPC_TIMER0 ((LPC_TIMER_T *)0x40004000UL)
#define LPC_TIMER1 ((LPC_TIMER_T *)0x40008000UL)
#define TIMER_IR_CLR(n) (1U << (n))
static inline bool Chip_TIMER_MatchPending(LPC_TIMER_T *pTMR, int8_t matchnum)
{
    return (bool)((pTMR->IR & TIMER_IR_CLR(matchnum)) != 0);
}
static inline void Chip_TIMER_ClearMatch(LPC_TIMER_T *pTMR, int8_t matchnum)
{
    pTMR->IR = TIMER_IR_CLR(matchnum);
}
static inline void Chip_TIMER_Enable(LPC_TIMER_T *pTMR) { pTMR->TCR |= 1U; }
static inline void Chip_TIMER_SetMatch(LPC_TIMER_T *pTMR, int8_t matchnum, uint32_t matchval)
{
    pTMR->MR[matchnum] = matchval;
}
void Chip_TIMER_Init(LPC_TIMER_T *pTMR);
void Chip_TIMER_MatchEnableInt(LPC_TIMER_T *pTMR, int8_t matchnum);
void Chip_TIMER_ResetOnMatchEnable(LPC_TIMER_T *pTMR, int8_t matchnum);

typedef struct { __IO uint32_t INTSTAT, INTTCSTAT, INTTCCLEAR; } LPC_GPDMA_T;
#define LPC_GPDMA ((LPC_GPDMA_T *)0x50004000UL)
#define GPDMA_CONN_ADC 11U
#define GPDMA_TRANSFERTYPE_P2M_CONTROLLER_DMA 2U
void Chip_GPDMA_Init(LPC_GPDMA_T *pGPDMA);
uint8_t Chip_GPDMA_GetFreeChannel(LPC_GPDMA_T *pGPDMA, uint32_t PeripheralConnection_ID);
Status Chip_GPDMA_Transfer(LPC_GPDMA_T *pGPDMA, uint8_t ChannelNum, uint32_t src, uint32_t dst,
                           uint32_t TransferType, uint32_t Size);
Status Chip_GPDMA_Interrupt(LPC_GPDMA_T *pGPDMA, uint8_t ch);

typedef struct { __IO uint32_t RBR_THR_DLL, IER, IIR_FCR, LCR, RESERVED, LSR; } LPC_USART_T;
#define LPC_UART0 ((LPC_USART_T *)0x4000C000UL)
#define UART_LSR_RDR 0x01U
static inline uint8_t Chip_UART_ReadByte(LPC_USART_T *pUART) { return (uint8_t)(pUART->RBR_THR_DLL & 0xFFU); }
static inline uint32_t Chip_UART_ReadLineStatus(LPC_USART_T *pUART) { return pUART->LSR; }
void Chip_UART_Init(LPC_USART_T *pUART);
void Chip_UART_IntEnable(LPC_USART_T *pUART, uint32_t intMask);
#define UART_IER_RBRINT 1U

void SystemCoreClockUpdate(void);
void Board_Init(void);
void vibration_report(uint32_t rms);
void slot_use(uint32_t slot);
void timer_jobs_run(uint32_t due);
void console_byte(uint8_t c);
#endif
