/* Nuvoton NuMicro M480 BSP (M481/M487, Cortex-M4, 4 priority bits), the parts of M480.h,
 * timer.h, uart.h, pdma.h this corpus uses.
 * - Inline, as in the BSP (macros or __STATIC_INLINE in timer.h/uart.h/pdma.h): TIMER_Start,
 *   TIMER_EnableInt, TIMER_GetIntFlag, TIMER_ClearIntFlag, UART_READ, UART_WRITE,
 *   UART_GET_RX_EMPTY, UART_ENABLE_INT, PDMA_GET_TD_STS, PDMA_CLR_TD_FLAG, PDMA_SET_TRANS_CNT.
 * - Body-less, as in the BSP's .c files: TIMER_Open, UART_Open, PDMA_Open, PDMA_SetTransferCnt,
 *   PDMA_SetTransferAddr, PDMA_SetTransferMode, PDMA_EnableInt, PDMA_Trigger.
 * - CMSIS core names from cm_core.h (NVIC_SetPriority takes the unshifted level 0..15). */
#ifndef NUMICRO_H
#define NUMICRO_H
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
typedef enum IRQn {
    SysTick_IRQn = -1,
    GPA_IRQn = 16,
    PDMA_IRQn = 17,
    TMR0_IRQn = 32,
    TMR1_IRQn = 33,
    UART0_IRQn = 36,
    UART1_IRQn = 37,
    EADC00_IRQn = 42,
} IRQn_Type;
#define __NVIC_PRIO_BITS 4U
#define __CORTEX_M 4U
#include "cm_core.h"

typedef struct {
    __IO uint32_t CTL;
    __IO uint32_t CMP;
    __IO uint32_t INTSTS;
    __IO uint32_t CNT;
} TIMER_T;
typedef struct {
    __IO uint32_t DAT;
    __IO uint32_t INTEN;
    __IO uint32_t FIFO;
    __IO uint32_t LINE;
    __IO uint32_t MODEM;
    __IO uint32_t MODEMSTS;
    __IO uint32_t FIFOSTS;
    __IO uint32_t INTSTS;
} UART_T;
typedef struct {
    __IO uint32_t TDSTS;
    __IO uint32_t ABTSTS;
    __IO uint32_t INTSTS;
} PDMA_T;
#define TIMER0 ((TIMER_T *)0x40050000UL)
#define TIMER1 ((TIMER_T *)0x40050100UL)
#define UART0 ((UART_T *)0x40070000UL)
#define UART1 ((UART_T *)0x40071000UL)
#define PDMA ((PDMA_T *)0x40008000UL)
#define TIMER_CTL_CNTEN_Msk (1UL << 30)
#define TIMER_CTL_INTEN_Msk (1UL << 29)
#define TIMER_INTSTS_TIF_Msk (1UL << 0)
#define TIMER_PERIODIC_MODE (1UL << 27)
#define TIMER_ONESHOT_MODE (0UL)
#define UART_INTEN_RDAIEN_Msk (1UL << 0)
#define UART_INTEN_RXTOIEN_Msk (1UL << 4)
#define UART_INTSTS_RDAINT_Msk (1UL << 8)
#define UART_INTSTS_RXTOINT_Msk (1UL << 12)
#define UART_FIFOSTS_RXEMPTY_Msk (1UL << 14)
#define PDMA_UART0_RX 5U
#define PDMA_WIDTH_8 0U
#define PDMA_SAR_FIX 0x300U
#define PDMA_DAR_INC 0U
#define PDMA_INT_TRANS_DONE 0U
#define PDMA_OP_BASIC 1U

__STATIC_FORCEINLINE void TIMER_Start(TIMER_T *timer) { timer->CTL |= TIMER_CTL_CNTEN_Msk; }
__STATIC_FORCEINLINE void TIMER_Stop(TIMER_T *timer) { timer->CTL &= ~TIMER_CTL_CNTEN_Msk; }
__STATIC_FORCEINLINE void TIMER_EnableInt(TIMER_T *timer) { timer->CTL |= TIMER_CTL_INTEN_Msk; }
__STATIC_FORCEINLINE uint32_t TIMER_GetIntFlag(TIMER_T *timer)
{
    return (timer->INTSTS & TIMER_INTSTS_TIF_Msk) ? 1U : 0U;
}
__STATIC_FORCEINLINE void TIMER_ClearIntFlag(TIMER_T *timer) { timer->INTSTS = TIMER_INTSTS_TIF_Msk; }
#define TIMER_SET_CMP_VALUE(timer, u32Value) ((timer)->CMP = (u32Value))
#define TIMER_RESET_COUNTER(timer) ((timer)->CNT = 0UL)
uint32_t TIMER_Open(TIMER_T *timer, uint32_t u32Mode, uint32_t u32Freq);

#define UART_READ(uart) ((uart)->DAT)
#define UART_WRITE(uart, u8Data) ((uart)->DAT = (u8Data))
#define UART_GET_RX_EMPTY(uart) ((uart)->FIFOSTS & UART_FIFOSTS_RXEMPTY_Msk)
#define UART_ENABLE_INT(uart, u32eIntSel) ((uart)->INTEN |= (u32eIntSel))
void UART_Open(UART_T *uart, uint32_t u32baudrate);
uint32_t UART_Write(UART_T *uart, const uint8_t *pu8TxBuf, uint32_t u32WriteBytes);

#define PDMA_GET_TD_STS(pdma) ((uint32_t)((pdma)->TDSTS))
#define PDMA_CLR_TD_FLAG(pdma, u32Mask) ((uint32_t)((pdma)->TDSTS = (u32Mask)))
void PDMA_Open(PDMA_T *pdma, uint32_t u32Mask);
void PDMA_SetTransferCnt(PDMA_T *pdma, uint32_t u32Ch, uint32_t u32Width, uint32_t u32TransCount);
void PDMA_SetTransferAddr(PDMA_T *pdma, uint32_t u32Ch, uint32_t u32SrcAddr, uint32_t u32SrcCtrl,
                          uint32_t u32DstAddr, uint32_t u32DstCtrl);
void PDMA_SetTransferMode(PDMA_T *pdma, uint32_t u32Ch, uint32_t u32Peripheral, uint32_t u32ScatterEn,
                          uint32_t u32DescAddr);
void PDMA_EnableInt(PDMA_T *pdma, uint32_t u32Ch, uint32_t u32Mask);
void PDMA_Trigger(PDMA_T *pdma, uint32_t u32Ch);
void SYS_Init(void);
int printf(const char *fmt, ...);
#endif
