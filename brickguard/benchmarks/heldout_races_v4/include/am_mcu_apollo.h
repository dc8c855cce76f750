/* Ambiq Apollo3 Blue HAL (am_mcu_apollo.h: am_hal_interrupt.h, am_hal_gpio.h, am_hal_ctimer.h,
 * am_hal_stimer.h, am_hal_utils.h), the parts this corpus uses. Cortex-M4F, 3 priority bits.
 * - am_hal_interrupt_master_disable() returns the old PRIMASK and sets it;
 *   am_hal_interrupt_master_set(state) writes it back (assembly in am_hal_interrupt.c, inline
 *   here with the same effect). AM_CRITICAL_BEGIN/AM_CRITICAL_END wrap the pair.
 * - am_hal_gpio_interrupt_register(pin, handler) stores the handler in the HAL's table;
 *   am_hal_gpio_interrupt_service(), called from the application's am_gpio_isr, calls it.
 * - ISRs are named am_<peripheral>_isr in the Apollo startup file. */
#ifndef AM_MCU_APOLLO_H
#define AM_MCU_APOLLO_H

typedef enum {
    SysTick_IRQn = -1,
    GPIO_IRQn = 13,
    CTIMER_IRQn = 14,
    STIMER_IRQn = 23,
    STIMER_CMPR0_IRQn = 24,
} IRQn_Type;
#define __NVIC_PRIO_BITS 3U
#define __CORTEX_M 4U
#include "cm_core.h"

#define AM_HAL_STATUS_SUCCESS 0U
#define AM_IRQ_PRIORITY_DEFAULT 4U

static inline uint32_t am_hal_interrupt_master_disable(void)
{
    uint32_t primask = __get_PRIMASK();
    __disable_irq();
    return primask;
}
static inline void am_hal_interrupt_master_set(uint32_t ui32InterruptState)
{
    __set_PRIMASK(ui32InterruptState);
}
#define AM_CRITICAL_BEGIN                                                    \
    if (1) {                                                                 \
        volatile uint32_t ui32Primask_04172010 = am_hal_interrupt_master_disable();
#define AM_CRITICAL_END                                                      \
        am_hal_interrupt_master_set(ui32Primask_04172010);                   \
    }

typedef void (*am_hal_gpio_handler_t)(void);
#define AM_HAL_GPIO_BIT(n) (((uint64_t)0x1) << (n))
uint32_t am_hal_gpio_interrupt_register(uint32_t ui32GPIONumber, am_hal_gpio_handler_t pfnHandler);
uint32_t am_hal_gpio_interrupt_enable(uint64_t ui64InterruptMask);
uint32_t am_hal_gpio_interrupt_status_get(bool bEnabledOnly, uint64_t *pui64IntStatus);
uint32_t am_hal_gpio_interrupt_clear(uint64_t ui64InterruptMask);
uint32_t am_hal_gpio_interrupt_service(uint64_t ui64Status);
uint32_t am_hal_gpio_input_read(uint32_t ui32Pin);

#define AM_HAL_CTIMER_INT_TIMERA0 0x00000001U
#define AM_HAL_CTIMER_TIMERA 0x0000FFFFU
uint32_t am_hal_ctimer_int_status_get(bool bEnabledOnly);
void am_hal_ctimer_int_clear(uint32_t ui32Interrupt);
void am_hal_ctimer_int_enable(uint32_t ui32Interrupt);
void am_hal_ctimer_start(uint32_t ui32TimerNumber, uint32_t ui32TimerSegment);
uint32_t am_hal_ctimer_read(uint32_t ui32TimerNumber, uint32_t ui32TimerSegment);

#define AM_HAL_STIMER_INT_OVERFLOW 0x00000100U
#define AM_HAL_STIMER_CFG_RUN 0x00000000U
#define AM_HAL_STIMER_XTAL_32KHZ 0x00000003U
uint32_t am_hal_stimer_config(uint32_t ui32STimerConfig);
uint32_t am_hal_stimer_counter_get(void);
uint32_t am_hal_stimer_int_status_get(bool bEnabledOnly);
void am_hal_stimer_int_clear(uint32_t ui32Interrupt);
void am_hal_stimer_int_enable(uint32_t ui32Interrupt);

void am_hal_delay_us(uint32_t ui32Us);
void am_bsp_low_power_init(void);

void handle_tap(void);
void sensor_power(bool on);
void report_pressure(uint32_t raw);
void report_fault(void);
void log_time(uint64_t ticks);
#endif
