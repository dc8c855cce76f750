/* Silicon Labs EFM32PG12 with emlib, trimmed: IRQ numbers, em_core.h's critical/atomic sections
 * (the bodies of em_core.c's CORE_EnterCritical/CORE_EnterAtomic), em_usart.h, em_gpio.h,
 * em_rtcc.h and gpiointerrupt.h declarations. */
#ifndef EFM32PG12_EMLIB_H
#define EFM32PG12_EMLIB_H

#include <stdbool.h>
#include <stdint.h>

typedef enum {
    SysTick_IRQn = -1,
    TIMER0_IRQn = 3,
    GPIO_EVEN_IRQn = 10,
    USART0_RX_IRQn = 12,
    USART0_TX_IRQn = 13,
    GPIO_ODD_IRQn = 18,
    TIMER1_IRQn = 19,
    LETIMER0_IRQn = 26,
    RTCC_IRQn = 30,
    LDMA_IRQn = 8
} IRQn_Type;

#define __NVIC_PRIO_BITS 3U
#include "armv7m_core.h"

/* ---- em_core.h ---- */
#define CORE_ATOMIC_METHOD_PRIMASK 0
#define CORE_ATOMIC_METHOD_BASEPRI 1
#ifndef CORE_ATOMIC_BASE_PRIORITY_LEVEL
#define CORE_ATOMIC_BASE_PRIORITY_LEVEL 3
#endif
#ifndef CORE_ATOMIC_METHOD
#define CORE_ATOMIC_METHOD CORE_ATOMIC_METHOD_PRIMASK
#endif

typedef uint32_t CORE_irqState_t;

static inline CORE_irqState_t CORE_EnterCritical(void)
{
    CORE_irqState_t irqState = __get_PRIMASK();
    __disable_irq();
    return irqState;
}

static inline void CORE_ExitCritical(CORE_irqState_t irqState)
{
    if (irqState == 0U) {
        __enable_irq();
    }
}

static inline CORE_irqState_t CORE_EnterAtomic(void)
{
#if (CORE_ATOMIC_METHOD == CORE_ATOMIC_METHOD_BASEPRI)
    CORE_irqState_t irqState = __get_BASEPRI();
    uint32_t basepri = (uint32_t)CORE_ATOMIC_BASE_PRIORITY_LEVEL << (8U - __NVIC_PRIO_BITS);
    if ((irqState == 0U) || (irqState > basepri)) {
        __set_BASEPRI(basepri);
    }
    return irqState;
#else
    return CORE_EnterCritical();
#endif
}

static inline void CORE_ExitAtomic(CORE_irqState_t irqState)
{
#if (CORE_ATOMIC_METHOD == CORE_ATOMIC_METHOD_BASEPRI)
    __set_BASEPRI(irqState);
#else
    CORE_ExitCritical(irqState);
#endif
}

#define CORE_DECLARE_IRQ_STATE CORE_irqState_t irqState
#define CORE_ENTER_CRITICAL() irqState = CORE_EnterCritical()
#define CORE_EXIT_CRITICAL() CORE_ExitCritical(irqState)
#define CORE_ENTER_ATOMIC() irqState = CORE_EnterAtomic()
#define CORE_EXIT_ATOMIC() CORE_ExitAtomic(irqState)
#define CORE_CRITICAL_SECTION(yourcode) \
    {                                   \
        CORE_DECLARE_IRQ_STATE;         \
        CORE_ENTER_CRITICAL();          \
        {                               \
            yourcode                    \
        }                               \
        CORE_EXIT_CRITICAL();           \
    }

/* ---- em_usart.h ---- */
typedef struct {
    volatile uint32_t CTRL, FRAME, TRIGCTRL, CMD, STATUS, CLKDIV, RXDATAX, RXDATA, RXDOUBLEX,
        RXDOUBLE, RXDATAXP, RXDOUBLEXP, TXDATAX, TXDATA, TXDOUBLEX, TXDOUBLE, IF, IFS, IFC, IEN;
} USART_TypeDef;
#define USART0 ((USART_TypeDef *)0x40010000UL)
#define USART_IF_TXC (1UL << 0)
#define USART_IF_TXBL (1UL << 1)
#define USART_IF_RXDATAV (1UL << 2)
#define USART_IF_RXOF (1UL << 4)

static inline uint32_t USART_IntGetEnabled(USART_TypeDef *usart) { return usart->IF & usart->IEN; }
static inline void USART_IntClear(USART_TypeDef *usart, uint32_t flags) { usart->IFC = flags; }
static inline void USART_IntEnable(USART_TypeDef *usart, uint32_t flags) { usart->IEN |= flags; }
static inline void USART_IntDisable(USART_TypeDef *usart, uint32_t flags) { usart->IEN &= ~flags; }
static inline uint8_t USART_RxDataGet(USART_TypeDef *usart) { return (uint8_t)usart->RXDATA; }
static inline void USART_TxDataPut(USART_TypeDef *usart, uint8_t data) { usart->TXDATA = data; }

/* ---- em_gpio.h ---- */
typedef enum { gpioPortA = 0, gpioPortB = 1, gpioPortC = 2, gpioPortD = 3, gpioPortF = 5 } GPIO_Port_TypeDef;
typedef enum { gpioModeInput = 1, gpioModeInputPull = 2, gpioModePushPull = 4 } GPIO_Mode_TypeDef;
void GPIO_PinModeSet(GPIO_Port_TypeDef port, unsigned int pin, GPIO_Mode_TypeDef mode, unsigned int out);
void GPIO_ExtIntConfig(GPIO_Port_TypeDef port, unsigned int pin, unsigned int intNo,
                       bool risingEdge, bool fallingEdge, bool enable);
uint32_t GPIO_IntGetEnabled(void);
void GPIO_IntClear(uint32_t flags);
unsigned int GPIO_PinInGet(GPIO_Port_TypeDef port, unsigned int pin);

/* ---- gpiointerrupt.h: the driver's GPIO_EVEN/ODD_IRQHandler call the registered callback ---- */
typedef void (*GPIOINT_IrqCallbackPtr_t)(uint8_t intNo);
void GPIOINT_Init(void);
void GPIOINT_CallbackRegister(uint8_t intNo, GPIOINT_IrqCallbackPtr_t callbackPtr);

/* ---- em_rtcc.h / em_letimer.h / em_timer.h ---- */
#define RTCC_IF_OF (1UL << 0)
#define RTCC_IF_CC1 (1UL << 2)
uint32_t RTCC_IntGetEnabled(void);
void RTCC_IntClear(uint32_t flags);
void RTCC_IntEnable(uint32_t flags);
uint32_t RTCC_CounterGet(void);
#define LETIMER_IF_UF (1UL << 2)
uint32_t LETIMER_IntGetEnabled(void);
void LETIMER_IntClear(uint32_t flags);
void LETIMER_IntEnable(uint32_t flags);
#define TIMER_IF_OF (1UL << 0)
uint32_t TIMER0_IntGetEnabled(void);
void TIMER0_IntClear(uint32_t flags);
void TIMER0_IntEnable(uint32_t flags);

/* ---- em_chip.h / em_emu.h ---- */
void CHIP_Init(void);
void EMU_EnterEM1(void);

#endif
