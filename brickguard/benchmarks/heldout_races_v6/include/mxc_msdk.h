/* Analog Devices / Maxim MSDK subset on a MAX32670 (Cortex-M4), written for this corpus with the
 * MSDK's names. __NVIC_PRIO_BITS is 3.
 * Inline (bodies here): the CMSIS-Core intrinsics (cmsis_core.h), MXC_SYS_Crit_Enter/Exit
 *   (as the MSDK's mxc_sys.h: PRIMASK set, with a nesting count).
 * Body-less library functions, declared only, with their documented effect:
 *   MXC_UART_TransactionAsync(&req): starts an interrupt-driven transfer and returns at once; the
 *     UART's IRQ handler must call MXC_UART_AsyncHandler(uart), which moves the bytes and, when the
 *     request completes, calls req.callback(&req, result) - so the callback runs in the UART IRQ.
 *   MXC_GPIO_RegisterCallback(&cfg, cb, arg): the GPIO port's IRQ handler calls MXC_GPIO_Handler(port),
 *     which calls cb(arg) in that IRQ.
 *   MXC_TMR_*: timer register access; MXC_TMR_ClearFlags clears the interrupt flag. */
#ifndef MXC_MSDK_H
#define MXC_MSDK_H
#define __NVIC_PRIO_BITS 3U
#include "cmsis_core.h"
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

enum { GPIO0_IRQn = 24, TMR0_IRQn = 5, TMR1_IRQn = 6, UART0_IRQn = 14 };
#define E_NO_ERROR 0
typedef struct { volatile uint32_t ctrl, status, int_en, int_fl, fifo; } mxc_uart_regs_t;
typedef struct { volatile uint32_t cnt, cmp, pwm, intfl, ctrl0; } mxc_tmr_regs_t;
typedef struct { volatile uint32_t en0, out, in, intfl; } mxc_gpio_regs_t;
#define MXC_UART0 ((mxc_uart_regs_t *)0x40042000UL)
#define MXC_TMR0 ((mxc_tmr_regs_t *)0x40010000UL)
#define MXC_GPIO0 ((mxc_gpio_regs_t *)0x40008000UL)
#define MXC_GPIO_PIN_12 (1UL << 12)

typedef struct mxc_uart_req mxc_uart_req_t;
typedef void (*mxc_uart_complete_cb_t)(mxc_uart_req_t *req, int result);
struct mxc_uart_req {
    mxc_uart_regs_t *uart;
    const uint8_t *txData;
    uint8_t *rxData;
    uint32_t txLen, rxLen, txCnt, rxCnt;
    mxc_uart_complete_cb_t callback;
};
int MXC_UART_Init(mxc_uart_regs_t *uart, unsigned int baud, int clock);
int MXC_UART_TransactionAsync(mxc_uart_req_t *req);
int MXC_UART_AsyncHandler(mxc_uart_regs_t *uart);

typedef void (*mxc_gpio_callback_fn)(void *cbdata);
typedef struct { mxc_gpio_regs_t *port; uint32_t mask; int func, pad, vssel; } mxc_gpio_cfg_t;
int MXC_GPIO_Config(const mxc_gpio_cfg_t *cfg);
void MXC_GPIO_RegisterCallback(const mxc_gpio_cfg_t *cfg, mxc_gpio_callback_fn fn, void *cbdata);
int MXC_GPIO_IntConfig(const mxc_gpio_cfg_t *cfg, int pol);
void MXC_GPIO_EnableInt(mxc_gpio_regs_t *port, uint32_t mask);
void MXC_GPIO_Handler(unsigned int port);
#define MXC_GPIO_INT_FALLING 1

typedef struct { int pres, mode, bitMode, clock; uint32_t cmp_cnt; int pol; } mxc_tmr_cfg_t;
int MXC_TMR_Init(mxc_tmr_regs_t *tmr, mxc_tmr_cfg_t *cfg, bool init_pins);
void MXC_TMR_Start(mxc_tmr_regs_t *tmr);
void MXC_TMR_ClearFlags(mxc_tmr_regs_t *tmr);
void MXC_TMR_EnableInt(mxc_tmr_regs_t *tmr);
#define TMR_MODE_CONTINUOUS 1
#define TMR_PRES_1 0
#define TMR_BIT_MODE_32 0
#define MXC_TMR_APB_CLK 0

static volatile uint32_t mxc_crit_nesting;
static inline void MXC_SYS_Crit_Enter(void) { __disable_irq(); mxc_crit_nesting++; }
static inline void MXC_SYS_Crit_Exit(void)
{
    if (mxc_crit_nesting && --mxc_crit_nesting == 0U) {
        __enable_irq();
    }
}
void MXC_Delay(uint32_t us);
void console_print(const char *fmt, ...);   /* blocking, polled UART1 */
#endif
