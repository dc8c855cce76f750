/* Microchip SAM D5x/E5x-style names (SERCOM, TC, EIC; `<PERIPH>_Handler` vector names; a few
 * Harmony-3 PLIB callbacks that run in the peripheral's handler), declared here so the programs
 * parse without the device pack. Cortex-M4F with 3 priority bits. Written for this corpus. */
#ifndef HO2_SAM_MINI_H
#define HO2_SAM_MINI_H

typedef enum {
    SysTick_IRQn = -1,
    EIC_EXTINT_3_IRQn = 15,
    SERCOM0_2_IRQn = 48,
    TC3_IRQn = 110,
    TC4_IRQn = 111
} IRQn_Type;

#define __NVIC_PRIO_BITS 3U
#include "cm_core.h"

typedef struct {
    volatile uint8_t INTFLAG;
    volatile uint8_t STATUS;
    volatile uint32_t DATA;
} SercomUsart;
typedef union {
    SercomUsart USART;
} Sercom;

typedef struct {
    volatile uint8_t INTFLAG;
    volatile uint16_t COUNT;
} TcCount16;
typedef union {
    TcCount16 COUNT16;
} Tc;

typedef struct {
    volatile uint32_t INTFLAG;
} Eic;

#define SERCOM0 ((Sercom *)0x40003000UL)
#define TC3 ((Tc *)0x4101C000UL)
#define TC4 ((Tc *)0x42001400UL)
#define EIC ((Eic *)0x40002800UL)

#define SERCOM_USART_INTFLAG_RXC 0x04U
#define SERCOM_USART_STATUS_BUFOVF 0x04U
#define TC_INTFLAG_OVF 0x01U
#define EIC_INTFLAG_EXTINT3 (1U << 3)

/* Harmony-3 PLIB: the callback runs inside TC3_Handler. */
typedef void (*TC_TIMER_CALLBACK)(uint32_t status, uintptr_t context);
void TC3_TimerCallbackRegister(TC_TIMER_CALLBACK callback, uintptr_t context);
void TC3_TimerStart(void);

void SYS_Initialize(void *data);
void port_led_toggle(void);
void uart_put(uint8_t byte);
void log_event(uint32_t code);

#endif
