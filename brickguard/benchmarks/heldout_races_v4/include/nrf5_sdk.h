/* Nordic nRF5 SDK 17 (legacy, no SoftDevice) on an nRF52832: the parts of app_util_platform.h,
 * app_timer.h, app_scheduler.h and nrf_drv_gpiote.h this corpus uses. Cortex-M4F, 3 bits.
 * - CRITICAL_REGION_ENTER()/CRITICAL_REGION_EXIT(): app_util_critical_region_enter/exit; without
 *   a SoftDevice they are app_util_disable_irq()/app_util_enable_irq(): __disable_irq() with a
 *   nesting count (functions in app_util_platform.c, inline here with the same effect).
 * - app_timer handlers run in the RTC1 interrupt (APP_TIMER_CONFIG_USE_SCHEDULER is 0).
 * - nrf_drv_gpiote_in_init() handlers run in GPIOTE_IRQHandler.
 * - app_sched_event_put() queues a handler that app_sched_execute() runs in main's context. */
#ifndef NRF5_SDK_H
#define NRF5_SDK_H

typedef enum {
    SysTick_IRQn = -1,
    GPIOTE_IRQn = 6,
    SAADC_IRQn = 7,
    RTC1_IRQn = 17,
} IRQn_Type;
#define __NVIC_PRIO_BITS 3U
#define __CORTEX_M 4U
#include "cm_core.h"

typedef uint32_t ret_code_t;
#define NRF_SUCCESS 0U
#define APP_ERROR_CHECK(err) do { if ((err) != NRF_SUCCESS) { for (;;) { } } } while (0)

extern volatile uint32_t m_in_critical_region;
static inline void app_util_disable_irq(void)
{
    __disable_irq();
    m_in_critical_region++;
}
static inline void app_util_enable_irq(void)
{
    m_in_critical_region--;
    if (m_in_critical_region == 0U) {
        __enable_irq();
    }
}
static inline void app_util_critical_region_enter(uint8_t *p_nested)
{
    (void)p_nested;
    app_util_disable_irq();
}
static inline void app_util_critical_region_exit(uint8_t nested)
{
    (void)nested;
    app_util_enable_irq();
}
#define CRITICAL_REGION_ENTER()                                                                    \
    {                                                                                              \
        uint8_t __CR_NESTED = 0;                                                                   \
        app_util_critical_region_enter(&__CR_NESTED);
#define CRITICAL_REGION_EXIT()                                                                     \
    app_util_critical_region_exit(__CR_NESTED);                                                    \
    }

typedef struct { void *p_next; uint64_t end_val; uint32_t repeat_period; void (*handler)(void *); void *p_context; bool active; } app_timer_t;
typedef app_timer_t *app_timer_id_t;
typedef void (*app_timer_timeout_handler_t)(void *p_context);
typedef enum { APP_TIMER_MODE_SINGLE_SHOT, APP_TIMER_MODE_REPEATED } app_timer_mode_t;
#define APP_TIMER_DEF(timer_id)                                                                    \
    static app_timer_t timer_id##_data = { 0 };                                                    \
    static const app_timer_id_t timer_id = &timer_id##_data
#define APP_TIMER_TICKS(MS) ((uint32_t)(((MS) * 32768U) / 1000U))
ret_code_t app_timer_init(void);
ret_code_t app_timer_create(app_timer_id_t const *p_timer_id, app_timer_mode_t mode,
                            app_timer_timeout_handler_t timeout_handler);
ret_code_t app_timer_start(app_timer_id_t timer_id, uint32_t timeout_ticks, void *p_context);

typedef void (*app_sched_event_handler_t)(void *p_event_data, uint16_t event_size);
#define APP_SCHED_INIT(EVENT_SIZE, QUEUE_SIZE) app_sched_init((EVENT_SIZE), (QUEUE_SIZE), NULL)
ret_code_t app_sched_init(uint16_t max_event_size, uint16_t queue_size, void *p_evt_buffer);
ret_code_t app_sched_event_put(void const *p_event_data, uint16_t event_size, app_sched_event_handler_t handler);
void app_sched_execute(void);

typedef uint32_t nrf_drv_gpiote_pin_t;
typedef enum { NRF_GPIOTE_POLARITY_LOTOHI = 1, NRF_GPIOTE_POLARITY_HITOLO, NRF_GPIOTE_POLARITY_TOGGLE } nrf_gpiote_polarity_t;
typedef struct { nrf_gpiote_polarity_t sense; uint32_t pull; bool is_watcher; bool hi_accuracy; bool skip_gpio_setup; } nrf_drv_gpiote_in_config_t;
#define GPIOTE_CONFIG_IN_SENSE_HITOLO(hi_accu) { NRF_GPIOTE_POLARITY_HITOLO, 0U, false, (hi_accu), false }
typedef void (*nrf_drv_gpiote_evt_handler_t)(nrf_drv_gpiote_pin_t pin, nrf_gpiote_polarity_t action);
ret_code_t nrf_drv_gpiote_init(void);
ret_code_t nrf_drv_gpiote_in_init(nrf_drv_gpiote_pin_t pin, nrf_drv_gpiote_in_config_t const *p_config,
                                  nrf_drv_gpiote_evt_handler_t evt_handler);
void nrf_drv_gpiote_in_event_enable(nrf_drv_gpiote_pin_t pin, bool int_enable);
#define BUTTON_1 13U
#define BUTTON_2 14U

void display_time(uint32_t h, uint32_t m, uint32_t s);
void alarm_check(uint32_t h, uint32_t m);
void adc_start_channel(uint32_t ch);
uint32_t adc_wait_result(void);
void on_double_click(void);
#endif
