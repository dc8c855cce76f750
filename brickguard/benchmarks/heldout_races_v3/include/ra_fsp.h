/* Renesas RA6M4 with FSP, trimmed: bsp_api.h's critical-section macros, the r_sci_uart and
 * r_gpt instance APIs (the driver's own ISRs, sci_uart_rxi_isr/gpt_counter_overflow_isr, call the
 * callback in cfg->p_callback in interrupt context), r_icu external IRQ. */
#ifndef RA_FSP_H
#define RA_FSP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    SysTick_IRQn = -1,
    SCI0_RXI_IRQn = 0,
    SCI0_TXI_IRQn = 1,
    SCI0_TEI_IRQn = 2,
    SCI0_ERI_IRQn = 3,
    GPT0_COUNTER_OVERFLOW_IRQn = 4,
    GPT1_COUNTER_OVERFLOW_IRQn = 5,
    ICU_IRQ5_IRQn = 6
} IRQn_Type;

#define __NVIC_PRIO_BITS 4U
#include "armv7m_core.h"

/* bsp_cfg.h: 0 = the critical section uses PRIMASK, otherwise BASEPRI at this level */
#ifndef BSP_CFG_IRQ_MASK_LEVEL_FOR_CRITICAL_SECTION
#define BSP_CFG_IRQ_MASK_LEVEL_FOR_CRITICAL_SECTION (0U)
#endif

#if BSP_CFG_IRQ_MASK_LEVEL_FOR_CRITICAL_SECTION == 0
#define FSP_CRITICAL_SECTION_GET_CURRENT_STATE __get_PRIMASK
#define FSP_CRITICAL_SECTION_SET_STATE __set_PRIMASK
#define FSP_CRITICAL_SECTION_IRQ_MASK_SET (1U)
#else
#define FSP_CRITICAL_SECTION_GET_CURRENT_STATE __get_BASEPRI
#define FSP_CRITICAL_SECTION_SET_STATE __set_BASEPRI
#define FSP_CRITICAL_SECTION_IRQ_MASK_SET \
    ((uint8_t)(BSP_CFG_IRQ_MASK_LEVEL_FOR_CRITICAL_SECTION << (8U - __NVIC_PRIO_BITS)))
#endif

#define FSP_CRITICAL_SECTION_DEFINE uint32_t old_mask_level = 0U
#define FSP_CRITICAL_SECTION_ENTER                              \
    old_mask_level = FSP_CRITICAL_SECTION_GET_CURRENT_STATE(); \
    FSP_CRITICAL_SECTION_SET_STATE(FSP_CRITICAL_SECTION_IRQ_MASK_SET)
#define FSP_CRITICAL_SECTION_EXIT FSP_CRITICAL_SECTION_SET_STATE(old_mask_level)

#define FSP_PARAMETER_NOT_USED(p) (void)((p))

typedef int fsp_err_t;
#define FSP_SUCCESS 0
#define FSP_ERR_IN_USE 9

/* ---- r_uart_api.h / r_sci_uart.h ---- */
typedef enum {
    UART_EVENT_RX_COMPLETE = (1UL << 0),
    UART_EVENT_TX_COMPLETE = (1UL << 1),
    UART_EVENT_RX_CHAR = (1UL << 2),
    UART_EVENT_ERR_PARITY = (1UL << 3),
    UART_EVENT_ERR_FRAMING = (1UL << 4),
    UART_EVENT_ERR_OVERFLOW = (1UL << 5),
    UART_EVENT_BREAK_DETECT = (1UL << 6),
    UART_EVENT_TX_DATA_EMPTY = (1UL << 7)
} uart_event_t;

typedef struct st_uart_callback_arg {
    uint32_t channel;
    uart_event_t event;
    uint32_t data;
    void const *p_context;
} uart_callback_args_t;

typedef struct st_uart_cfg {
    uint8_t channel;
    uint8_t rxi_ipl;
    uint8_t txi_ipl;
    uint8_t tei_ipl;
    uint8_t eri_ipl;
    void (*p_callback)(uart_callback_args_t *p_args);
    void const *p_context;
    void const *p_extend;
} uart_cfg_t;

typedef struct st_sci_uart_instance_ctrl {
    uint32_t open;
    uint8_t const *p_tx_src;
    uint32_t tx_src_bytes;
    uint8_t *p_rx_dest;
    uint32_t rx_dest_bytes;
} sci_uart_instance_ctrl_t;

fsp_err_t R_SCI_UART_Open(sci_uart_instance_ctrl_t *const p_api_ctrl, uart_cfg_t const *const p_cfg);
fsp_err_t R_SCI_UART_Write(sci_uart_instance_ctrl_t *const p_api_ctrl, uint8_t const *const p_src,
                           uint32_t const bytes);
fsp_err_t R_SCI_UART_Read(sci_uart_instance_ctrl_t *const p_api_ctrl, uint8_t *const p_dest,
                          uint32_t const bytes);

/* ---- r_timer_api.h / r_gpt.h ---- */
typedef enum {
    TIMER_EVENT_CYCLE_END = 0,
    TIMER_EVENT_CREST = 0,
    TIMER_EVENT_CAPTURE_A = 1,
    TIMER_EVENT_CAPTURE_B = 2,
    TIMER_EVENT_TROUGH = 3
} timer_event_t;

typedef struct st_timer_callback_args {
    void const *p_context;
    timer_event_t event;
    uint32_t capture;
} timer_callback_args_t;

typedef enum { TIMER_MODE_PERIODIC = 0, TIMER_MODE_ONE_SHOT = 1, TIMER_MODE_PWM = 2 } timer_mode_t;

typedef struct st_timer_cfg {
    timer_mode_t mode;
    uint32_t period_counts;
    uint32_t duty_cycle_counts;
    uint8_t channel;
    uint8_t cycle_end_ipl;
    IRQn_Type cycle_end_irq;
    void (*p_callback)(timer_callback_args_t *p_args);
    void const *p_context;
    void const *p_extend;
} timer_cfg_t;

typedef struct st_gpt_instance_ctrl {
    uint32_t open;
    uint32_t channel_mask;
} gpt_instance_ctrl_t;

fsp_err_t R_GPT_Open(gpt_instance_ctrl_t *const p_ctrl, timer_cfg_t const *const p_cfg);
fsp_err_t R_GPT_Start(gpt_instance_ctrl_t *const p_ctrl);
fsp_err_t R_GPT_Stop(gpt_instance_ctrl_t *const p_ctrl);

/* ---- r_external_irq_api.h / r_icu.h ---- */
typedef struct st_external_irq_callback_args {
    void const *p_context;
    uint32_t channel;
} external_irq_callback_args_t;

typedef struct st_external_irq_cfg {
    uint8_t channel;
    uint8_t ipl;
    IRQn_Type irq;
    void (*p_callback)(external_irq_callback_args_t *p_args);
    void const *p_context;
} external_irq_cfg_t;

typedef struct st_icu_instance_ctrl {
    uint32_t open;
} icu_instance_ctrl_t;

fsp_err_t R_ICU_ExternalIrqOpen(icu_instance_ctrl_t *const p_ctrl, external_irq_cfg_t const *const p_cfg);
fsp_err_t R_ICU_ExternalIrqEnable(icu_instance_ctrl_t *const p_ctrl);

/* ---- r_ioport.h ---- */
typedef uint16_t bsp_io_port_pin_t;
#define BSP_IO_PORT_01_PIN_06 ((bsp_io_port_pin_t)0x0106)
fsp_err_t R_IOPORT_PinWrite(void *p_ctrl, bsp_io_port_pin_t pin, uint32_t level);
void R_BSP_SoftwareDelay(uint32_t delay, uint32_t units);
#define BSP_DELAY_UNITS_MILLISECONDS 1000U

#endif
