/* Silicon Labs Gecko SDK (Gecko Platform 4.x) subset for an EFM32GG11B (Cortex-M4), written for
 * this corpus with the SDK's names: em_core, em_bus, em_gpio, em_usart, em_letimer, gpiointerrupt,
 * sl_sleeptimer, uartdrv. __NVIC_PRIO_BITS is 3 (0 most urgent .. 7).
 * The project's emlib_config.h sets CORE_ATOMIC_METHOD to CORE_ATOMIC_METHOD_BASEPRI with
 * CORE_ATOMIC_BASE_PRIORITY_LEVEL 3 (em_core's default level).
 * Inline (bodies here, as em_core.c / em_bus.h do it): the CMSIS-Core intrinsics (cmsis_core.h);
 *   CORE_EnterCritical / CORE_ExitCritical (PRIMASK: every interrupt masked), so
 *   CORE_ENTER_CRITICAL / CORE_EXIT_CRITICAL; CORE_EnterAtomic / CORE_ExitAtomic (BASEPRI raised to
 *   level 3: interrupts of priority 3..7 are masked, priorities 0..2 still run), so
 *   CORE_ENTER_ATOMIC / CORE_EXIT_ATOMIC; CORE_NvicMaskSetIRQ, CORE_EnterNvicMask /
 *   CORE_NvicEnableMask, so CORE_DECLARE_NVIC_MASK / CORE_ENTER_NVIC / CORE_EXIT_NVIC (only the
 *   interrupts named in the mask are disabled, in the NVIC); BUS_RamBitWrite / BUS_RamBitRead (one
 *   store / load through the SRAM bit-band alias: a single-copy atomic write of one bit).
 * Body-less library functions, declared only, with their documented effect:
 *   GPIOINT_Init(): installs GPIO_EVEN_IRQHandler and GPIO_ODD_IRQHandler and enables both IRQs.
 *   GPIOINT_CallbackRegister(intNo, cb): cb(intNo) is called from GPIO_EVEN_IRQHandler when intNo
 *     is even and from GPIO_ODD_IRQHandler when it is odd (interrupt context).
 *   GPIO_ExtIntConfig(port, pin, intNo, rising, falling, enable): routes the pin to interrupt intNo.
 *   sl_sleeptimer_start_timer / sl_sleeptimer_start_periodic_timer(&h, ticks, cb, data, prio,
 *     flags): cb(&h, data) is called from the RTCC interrupt handler (interrupt context).
 *     sl_sleeptimer_stop_timer(&h). sl_sleeptimer_get_tick_count(): 32768 Hz ticks.
 *     sl_sleeptimer_ms_to_tick(ms). sl_sleeptimer_delay_millisecond(ms): busy-waits.
 *   UARTDRV_Receive(h, buf, n, cb) / UARTDRV_Transmit(h, buf, n, cb): start an LDMA transfer and
 *     return at once; cb(h, status, buf, n) runs from the LDMA interrupt handler when it completes.
 *   USART_Rx / USART_Tx / USART_IntGet / USART_IntClear / USART_IntEnable, USART_StatusGet.
 *   LETIMER_IntClear / LETIMER_IntGet / LETIMER_CounterGet.
 *   GPIO_PinOutSet / GPIO_PinOutClear / GPIO_PinInGet / GPIO_PinModeSet. */
#ifndef EM_GECKO_H
#define EM_GECKO_H
#define __NVIC_PRIO_BITS 3U
#include "cmsis_core.h"
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

enum { GPIO_EVEN_IRQn = 10, GPIO_ODD_IRQn = 18, USART0_RX_IRQn = 11, USART0_TX_IRQn = 12,
       LETIMER0_IRQn = 26, RTCC_IRQn = 30, LDMA_IRQn = 8, TIMER0_IRQn = 2, TIMER1_IRQn = 7 };

/* em_core */
typedef uint32_t CORE_irqState_t;
#define CORE_ATOMIC_BASE_PRIORITY_LEVEL 3U
static inline CORE_irqState_t CORE_EnterCritical(void) { CORE_irqState_t s = __get_PRIMASK(); __disable_irq(); return s; }
static inline void CORE_ExitCritical(CORE_irqState_t s) { if ((s & 1U) == 0U) { __enable_irq(); } }
static inline CORE_irqState_t CORE_EnterAtomic(void)
{
    CORE_irqState_t s = __get_BASEPRI();
    uint32_t level = CORE_ATOMIC_BASE_PRIORITY_LEVEL << (8U - __NVIC_PRIO_BITS);
    if ((s == 0U) || (s > level)) {
        __set_BASEPRI(level);
    }
    return s;
}
static inline void CORE_ExitAtomic(CORE_irqState_t s) { __set_BASEPRI(s); }
#define CORE_DECLARE_IRQ_STATE CORE_irqState_t irqState
#define CORE_ENTER_CRITICAL() irqState = CORE_EnterCritical()
#define CORE_EXIT_CRITICAL() CORE_ExitCritical(irqState)
#define CORE_ENTER_ATOMIC() irqState = CORE_EnterAtomic()
#define CORE_EXIT_ATOMIC() CORE_ExitAtomic(irqState)
typedef struct { uint32_t a[2]; } CORE_nvicMask_t;
static inline void CORE_NvicMaskSetIRQ(int32_t irqN, CORE_nvicMask_t *mask) { mask->a[(uint32_t)irqN >> 5] |= 1UL << ((uint32_t)irqN & 31U); }
static inline void CORE_EnterNvicMask(CORE_nvicMask_t *nvicState, const CORE_nvicMask_t *disable)
{
    CORE_irqState_t s = CORE_EnterCritical();
    nvicState->a[0] = NVIC->ISER[0];
    nvicState->a[1] = NVIC->ISER[1];
    NVIC->ICER[0] = disable->a[0];
    NVIC->ICER[1] = disable->a[1];
    CORE_ExitCritical(s);
}
static inline void CORE_NvicEnableMask(const CORE_nvicMask_t *enable)
{
    NVIC->ISER[0] = enable->a[0];
    NVIC->ISER[1] = enable->a[1];
}
#define CORE_DECLARE_NVIC_STATE CORE_nvicMask_t nvicState
#define CORE_DECLARE_NVIC_MASK(x) CORE_nvicMask_t x = { { 0U, 0U } }
#define CORE_ENTER_NVIC(disable) CORE_EnterNvicMask(&nvicState, (disable))
#define CORE_EXIT_NVIC() CORE_NvicEnableMask(&nvicState)

/* em_bus (SRAM bit-band) */
#define SRAM_BASE 0x20000000UL
#define BITBAND_RAM_BASE 0x22000000UL
static inline void BUS_RamBitWrite(volatile const uint32_t *addr, unsigned int bit, unsigned int val)
{
    uintptr_t aliasAddr = BITBAND_RAM_BASE + (((uintptr_t)addr - SRAM_BASE) * 32U) + (bit * 4U);
    *(volatile uint32_t *)aliasAddr = (uint32_t)val;
}
static inline unsigned int BUS_RamBitRead(volatile const uint32_t *addr, unsigned int bit)
{
    uintptr_t aliasAddr = BITBAND_RAM_BASE + (((uintptr_t)addr - SRAM_BASE) * 32U) + (bit * 4U);
    return *(volatile uint32_t *)aliasAddr;
}

/* peripherals */
typedef enum { gpioPortA = 0, gpioPortB = 1, gpioPortC = 2, gpioPortD = 3, gpioPortE = 4, gpioPortF = 5 } GPIO_Port_TypeDef;
typedef enum { gpioModeInput = 1, gpioModeInputPull = 2, gpioModePushPull = 4 } GPIO_Mode_TypeDef;
typedef struct { volatile uint32_t STATUS, IF, IFS, IFC, IEN, RXDATA, TXDATA; } USART_TypeDef;
typedef struct { volatile uint32_t CTRL, CNT, COMP0, IF, IFC, IEN; } LETIMER_TypeDef;
#define USART0 ((USART_TypeDef *)0x40010000UL)
#define LETIMER0 ((LETIMER_TypeDef *)0x40066000UL)
#define USART_IF_RXDATAV 0x4U
#define USART_IF_TXBL 0x2U
#define LETIMER_IF_UF 0x4U
typedef void (*GPIOINT_IrqCallbackPtr_t)(uint8_t intNo);
void GPIOINT_Init(void);
void GPIOINT_CallbackRegister(uint8_t intNo, GPIOINT_IrqCallbackPtr_t callbackPtr);
void GPIO_ExtIntConfig(GPIO_Port_TypeDef port, unsigned int pin, unsigned int intNo, bool risingEdge, bool fallingEdge, bool enable);
void GPIO_PinModeSet(GPIO_Port_TypeDef port, unsigned int pin, GPIO_Mode_TypeDef mode, unsigned int out);
void GPIO_PinOutSet(GPIO_Port_TypeDef port, unsigned int pin);
void GPIO_PinOutClear(GPIO_Port_TypeDef port, unsigned int pin);
unsigned int GPIO_PinInGet(GPIO_Port_TypeDef port, unsigned int pin);
uint8_t USART_Rx(USART_TypeDef *usart);
void USART_Tx(USART_TypeDef *usart, uint8_t data);
uint32_t USART_IntGet(USART_TypeDef *usart);
void USART_IntClear(USART_TypeDef *usart, uint32_t flags);
void USART_IntEnable(USART_TypeDef *usart, uint32_t flags);
uint32_t LETIMER_IntGet(LETIMER_TypeDef *letimer);
void LETIMER_IntClear(LETIMER_TypeDef *letimer, uint32_t flags);
uint32_t LETIMER_CounterGet(LETIMER_TypeDef *letimer);
void CHIP_Init(void);

typedef struct sl_sleeptimer_timer_handle sl_sleeptimer_timer_handle_t;
typedef void (*sl_sleeptimer_timer_callback_t)(sl_sleeptimer_timer_handle_t *handle, void *data);
struct sl_sleeptimer_timer_handle { void *callback_data; uint8_t priority; uint16_t option_flags; sl_sleeptimer_timer_handle_t *next; sl_sleeptimer_timer_callback_t callback; uint32_t timeout_periodic; uint32_t delta; };
typedef uint32_t sl_status_t;
#define SL_STATUS_OK 0U
sl_status_t sl_sleeptimer_init(void);
sl_status_t sl_sleeptimer_start_timer(sl_sleeptimer_timer_handle_t *handle, uint32_t timeout, sl_sleeptimer_timer_callback_t callback, void *callback_data, uint8_t priority, uint16_t option_flags);
sl_status_t sl_sleeptimer_start_periodic_timer(sl_sleeptimer_timer_handle_t *handle, uint32_t timeout, sl_sleeptimer_timer_callback_t callback, void *callback_data, uint8_t priority, uint16_t option_flags);
sl_status_t sl_sleeptimer_stop_timer(sl_sleeptimer_timer_handle_t *handle);
uint32_t sl_sleeptimer_get_tick_count(void);
uint32_t sl_sleeptimer_ms_to_tick(uint16_t time_ms);
void sl_sleeptimer_delay_millisecond(uint16_t time_ms);

typedef struct UARTDRV_HandleData UARTDRV_HandleData_t;
typedef UARTDRV_HandleData_t *UARTDRV_Handle_t;
typedef uint32_t Ecode_t;
#define ECODE_EMDRV_UARTDRV_OK 0U
typedef void (*UARTDRV_Callback_t)(UARTDRV_Handle_t handle, Ecode_t transferStatus, uint8_t *data, uint32_t transferCount);
Ecode_t UARTDRV_Receive(UARTDRV_Handle_t handle, uint8_t *data, uint32_t count, UARTDRV_Callback_t callback);
Ecode_t UARTDRV_Transmit(UARTDRV_Handle_t handle, uint8_t *data, uint32_t count, UARTDRV_Callback_t callback);
extern UARTDRV_Handle_t sl_uartdrv_usart_vcom_handle;
void app_log(const char *fmt, ...);
#endif
