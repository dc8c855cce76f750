/* SEGGER embOS V5 for Cortex-M (RTOS.h), on an NXP Kinetis K64 (MK64F12, 4 priority bits),
 * reduced to what this corpus uses.
 * - OS_INT_IncDI()/OS_INT_DecRI(): nestable "disable embOS interrupts": BASEPRI is raised to
 *   OS_IPL_DI_DEFAULT (0x80, level 8); levels 0..7 are zero-latency interrupts that embOS never
 *   masks (and that must not call embOS).
 * - OS_TASK_EnterRegion()/OS_TASK_LeaveRegion(): no task switch until the count returns to zero;
 *   interrupts stay enabled.
 * - An embOS interrupt handler calls OS_INT_Enter() first and OS_INT_Leave() last.
 * - Mailboxes copy the message in and out; OS_MAILBOX_Put() may be called from an embOS ISR. */
#ifndef RTOS_H
#define RTOS_H

typedef enum {
    SysTick_IRQn = -1,
    ADC0_IRQn = 39,
    FTM0_IRQn = 42,
    PIT0_IRQn = 48,
    UART0_RX_TX_IRQn = 31,
    PORTC_IRQn = 61,
} IRQn_Type;
#define __NVIC_PRIO_BITS 4U
#define __CORTEX_M 4U
#include "cm_core.h"

typedef uint8_t OS_U8;
typedef uint32_t OS_U32;
typedef int32_t OS_I32;
typedef uint32_t OS_TIME;
typedef uint8_t OS_PRIO;

#define OS_IPL_DI_DEFAULT 0x80U
#define OS_IPL_EI_DEFAULT 0x00U

typedef struct {
    volatile OS_U8 DI;
    volatile OS_U8 Region;
    volatile OS_U8 InInt;
} OS_COUNTERS;
extern OS_COUNTERS OS_Counters;

#define OS_DI() __set_BASEPRI(OS_IPL_DI_DEFAULT)
#define OS_EI() __set_BASEPRI(OS_IPL_EI_DEFAULT)
#define OS_INT_IncDI() do { OS_DI(); OS_Counters.DI++; } while (0)
#define OS_INT_DecRI() do { if (--OS_Counters.DI == 0U) { OS_EI(); } } while (0)
#define OS_TASK_EnterRegion() do { OS_Counters.Region++; } while (0)
void OS_TASK_LeaveRegion(void);

void OS_INT_Enter(void);
void OS_INT_Leave(void);

typedef struct OS_TASK_STRUCT { void *pStack; OS_PRIO Priority; const char *Name; } OS_TASK;
#define OS_TASK_CREATE(pTask, pName, Priority, pRoutine, pStack) \
    OS_TASK_Create((pTask), (pName), (Priority), (pRoutine), (void *)(pStack), sizeof(pStack), 2U)
void OS_TASK_Create(OS_TASK *pTask, const char *pName, OS_PRIO Priority, void (*pRoutine)(void),
                    void *pStack, OS_U32 StackSize, OS_U32 TimeSlice);
void OS_TASK_Delay(OS_TIME ms);
void OS_Init(void);
void OS_InitHW(void);
void OS_Start(void);

typedef struct { void *pData; OS_U32 nofMsg; OS_U32 maxMsg; OS_U32 sizeofMsg; } OS_MAILBOX;
void OS_MAILBOX_Create(OS_MAILBOX *pMB, OS_U8 sizeofMsg, OS_U32 maxnofMsg, void *pMsg);
char OS_MAILBOX_Put(OS_MAILBOX *pMB, const void *pMail);
void OS_MAILBOX_GetBlocked(OS_MAILBOX *pMB, void *pDest);

/* Kinetis peripherals used by the handlers. */
typedef struct { __IO uint32_t PCR[32]; uint32_t r[8]; __IO uint32_t ISFR; } PORT_Type;
#define PORTC ((PORT_Type *)0x4004B000UL)
typedef struct { __IO uint32_t SC, CNT, MOD; struct { __IO uint32_t CnSC, CnV; } CONTROLS[8]; __IO uint32_t STATUS; } FTM_Type;
#define FTM0 ((FTM_Type *)0x40038000UL)
typedef struct { __IO uint32_t SC1[2], CFG1, CFG2, R[2]; } ADC_Type;
#define ADC0 ((ADC_Type *)0x4003B000UL)
typedef struct { __IO uint8_t BDH, BDL, C1, C2, S1, S2, C3, D; } UART_Type;
#define UART0 ((UART_Type *)0x4006A000UL)
#define UART_S1_RDRF_MASK 0x20U
typedef struct { __IO uint32_t LDVAL, CVAL, TCTRL, TFLG; } PIT_CHANNEL_Type;
#define PIT_CH0 ((PIT_CHANNEL_Type *)0x40037100UL)

void display_rpm(uint32_t rpm);
void display_period(uint32_t ticks, uint32_t at);
void nav_update(int32_t lat_e7, int32_t lon_e7);
int32_t nmea_parse_field(uint8_t c, int32_t *lat_e7, int32_t *lon_e7);
void valve_set(uint32_t permille);
#endif
