/* A generic bare-CMSIS Cortex-M4 device ("ACME M4") with a timer, a UART, an SPI with DMA and a
 * GPIO interrupt; register structs and IRQ numbers made up, core names as in CMSIS.
 * Written for this corpus. */
#ifndef HO2_CMSIS_DEV_H
#define HO2_CMSIS_DEV_H

typedef enum {
    SysTick_IRQn = -1,
    TIMER0_IRQn = 8,
    TIMER1_IRQn = 9,
    UART0_IRQn = 12,
    SPI0_IRQn = 14,
    DMA0_IRQn = 16,
    GPIO0_IRQn = 20
} IRQn_Type;

#define __NVIC_PRIO_BITS 3U
#include "cm_core.h"

typedef struct {
    volatile uint32_t CTRL;
    volatile uint32_t STATUS;
    volatile uint32_t COUNT;
    volatile uint32_t INTCLR;
} ACME_TIMER_Type;

typedef struct {
    volatile uint32_t DATA;
    volatile uint32_t STATUS;
    volatile uint32_t CTRL;
} ACME_UART_Type;

typedef struct {
    volatile uint32_t SRC;
    volatile uint32_t DST;
    volatile uint32_t LEN;
    volatile uint32_t CTRL;
    volatile uint32_t STATUS;
} ACME_DMA_Type;

typedef struct {
    volatile uint32_t IN;
    volatile uint32_t INTSTAT;
} ACME_GPIO_Type;

#define ACME_TIMER0 ((ACME_TIMER_Type *)0x40010000UL)
#define ACME_TIMER1 ((ACME_TIMER_Type *)0x40011000UL)
#define ACME_UART0 ((ACME_UART_Type *)0x40020000UL)
#define ACME_DMA0 ((ACME_DMA_Type *)0x40030000UL)
#define ACME_GPIO0 ((ACME_GPIO_Type *)0x40040000UL)

#define UART_STATUS_RXNE 0x1U
#define UART_STATUS_TXE 0x2U
#define DMA_STATUS_DONE 0x1U
#define DMA_CTRL_START 0x1U

void system_init(void);
void uart_send_byte(uint8_t b);
void radio_send(const uint8_t *frame, uint32_t len);
void blink(void);
uint32_t read_sensor(void);

#endif
