/* Artery AT32F403A/407 firmware library (Cortex-M4F, 4 priority bits), the parts of
 * at32f403a_407.h, at32f403a_407_misc.h, _tmr.h, _can.h, _exint.h, _gpio.h this corpus uses.
 * - Body-less, as in the library's .c files: nvic_priority_group_config, nvic_irq_enable(irqn,
 *   preempt, sub), nvic_irq_disable, tmr_*, can_*, exint_*, gpio_*, adc_*.
 *   NVIC_PRIORITY_GROUP_4 gives 4 pre-emption bits and no sub-priority; NVIC_PRIORITY_GROUP_2 two
 *   and two: only the pre-emption part decides whether a handler preempts another.
 * - CMSIS core names from cm_core.h (inline, as in CMSIS). */
#ifndef AT32F403A_407_H
#define AT32F403A_407_H
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
typedef enum IRQn {
    SysTick_IRQn = -1,
    EXINT0_IRQn = 6,
    DMA1_Channel1_IRQn = 11,
    CAN1_RX0_IRQn = 20,
    TMR2_GLOBAL_IRQn = 28,
    TMR3_GLOBAL_IRQn = 29,
    TMR4_GLOBAL_IRQn = 30,
    USART1_IRQn = 37,
} IRQn_Type;
#define __NVIC_PRIO_BITS 4U
#define __CORTEX_M 4U
#include "cm_core.h"

typedef enum { RESET = 0, SET = !RESET } flag_status;
typedef enum { FALSE = 0, TRUE = !FALSE } confirm_state;
typedef struct tmr_type tmr_type;
typedef struct can_type can_type;
typedef struct usart_type usart_type;
extern tmr_type *const TMR2;
extern tmr_type *const TMR3;
extern tmr_type *const TMR4;
extern can_type *const CAN1;
extern usart_type *const USART1;
#define NVIC_PRIORITY_GROUP_0 ((uint32_t)0x700)
#define NVIC_PRIORITY_GROUP_2 ((uint32_t)0x500)
#define NVIC_PRIORITY_GROUP_4 ((uint32_t)0x300)
void nvic_priority_group_config(uint32_t priority_group);
void nvic_irq_enable(IRQn_Type irqn, uint32_t preempt_priority, uint32_t sub_priority);
void nvic_irq_disable(IRQn_Type irqn);

#define TMR_OVF_FLAG ((uint32_t)0x000001)
#define TMR_OVF_INT ((uint32_t)0x000001)
flag_status tmr_flag_get(tmr_type *tmr_x, uint32_t tmr_flag);
void tmr_flag_clear(tmr_type *tmr_x, uint32_t tmr_flag);
void tmr_interrupt_enable(tmr_type *tmr_x, uint32_t tmr_interrupt, confirm_state new_state);
void tmr_counter_enable(tmr_type *tmr_x, confirm_state new_state);
uint32_t tmr_counter_value_get(tmr_type *tmr_x);

#define CAN_RX_FIFO0 0
#define CAN_RF0MN_FLAG ((uint32_t)0x000101)
#define CAN_RF0MIEN_INT ((uint32_t)0x00000002)
typedef struct {
    uint32_t standard_id;
    uint32_t extended_id;
    uint8_t id_type;
    uint8_t frame_type;
    uint8_t dlc;
    uint8_t data[8];
    uint8_t filter_index;
} can_rx_message_type;
typedef struct {
    uint32_t standard_id;
    uint32_t extended_id;
    uint8_t id_type;
    uint8_t frame_type;
    uint8_t dlc;
    uint8_t data[8];
} can_tx_message_type;
void can_message_receive(can_type *can_x, uint8_t fifo_number, can_rx_message_type *rx_message_struct);
uint8_t can_message_transmit(can_type *can_x, can_tx_message_type *tx_message_struct);
void can_interrupt_enable(can_type *can_x, uint32_t can_int, confirm_state new_state);
flag_status can_flag_get(can_type *can_x, uint32_t can_flag);

#define EXINT_LINE_0 ((uint32_t)0x000001)
flag_status exint_flag_get(uint32_t exint_line);
void exint_flag_clear(uint32_t exint_line);
uint16_t adc_ordinary_conversion_data_get(void *adc_x);
void system_clock_config(void);
void uart_print_init(uint32_t baudrate);
int printf(const char *fmt, ...);
#endif
