/* Nordic nRF52-style register names (NRF_<periph>->EVENTS_* / TASKS_*, EasyDMA PTR/MAXCNT) and a
 * few nrfx driver calls whose handlers run in the driver's interrupt, declared here so the
 * programs parse without the nRF MDK. Written for this corpus. */
#ifndef HO2_NRF_MINI_H
#define HO2_NRF_MINI_H

typedef enum {
    SysTick_IRQn = -1,
    UARTE0_UART0_IRQn = 2,
    GPIOTE_IRQn = 6,
    SAADC_IRQn = 7,
    TIMER0_IRQn = 8,
    RTC1_IRQn = 17
} IRQn_Type;

#define __NVIC_PRIO_BITS 3U
#include "cm_core.h"

typedef struct {
    volatile uint32_t PTR;
    volatile uint32_t MAXCNT;
    volatile uint32_t AMOUNT;
} NRF_EASYDMA_Type;

typedef struct {
    volatile uint32_t TASKS_START;
    volatile uint32_t TASKS_SAMPLE;
    volatile uint32_t TASKS_STOP;
    volatile uint32_t EVENTS_STARTED;
    volatile uint32_t EVENTS_END;
    volatile uint32_t INTENSET;
    NRF_EASYDMA_Type RESULT;
} NRF_SAADC_Type;

typedef struct {
    volatile uint32_t TASKS_STARTRX;
    volatile uint32_t TASKS_STOPRX;
    volatile uint32_t EVENTS_ENDRX;
    volatile uint32_t EVENTS_RXTO;
    volatile uint32_t EVENTS_ERROR;
    volatile uint32_t INTENSET;
    NRF_EASYDMA_Type RXD;
} NRF_UARTE_Type;

typedef struct {
    volatile uint32_t TASKS_START;
    volatile uint32_t EVENTS_TICK;
    volatile uint32_t EVENTS_OVRFLW;
    volatile uint32_t EVENTS_COMPARE[4];
    volatile uint32_t INTENSET;
    volatile uint32_t COUNTER;
} NRF_RTC_Type;

#define NRF_SAADC ((NRF_SAADC_Type *)0x40007000UL)
#define NRF_UARTE0 ((NRF_UARTE_Type *)0x40002000UL)
#define NRF_RTC1 ((NRF_RTC_Type *)0x40011000UL)

typedef uint32_t nrfx_err_t;
#define NRFX_SUCCESS 0U

typedef uint32_t nrfx_gpiote_pin_t;
typedef enum { NRF_GPIOTE_POLARITY_LOTOHI = 1, NRF_GPIOTE_POLARITY_HITOLO = 2 } nrf_gpiote_polarity_t;
typedef struct {
    nrf_gpiote_polarity_t sense;
    bool hi_accuracy;
} nrfx_gpiote_in_config_t;
/* The handler runs in GPIOTE_IRQHandler (inside the nrfx driver). */
typedef void (*nrfx_gpiote_evt_handler_t)(nrfx_gpiote_pin_t pin, nrf_gpiote_polarity_t action);
nrfx_err_t nrfx_gpiote_init(void);
nrfx_err_t nrfx_gpiote_in_init(nrfx_gpiote_pin_t pin, const nrfx_gpiote_in_config_t *config,
                               nrfx_gpiote_evt_handler_t handler);
void nrfx_gpiote_in_event_enable(nrfx_gpiote_pin_t pin, bool int_enable);

typedef enum { NRFX_UARTE_EVT_TX_DONE, NRFX_UARTE_EVT_RX_DONE, NRFX_UARTE_EVT_ERROR } nrfx_uarte_evt_type_t;
typedef struct {
    nrfx_uarte_evt_type_t type;
    struct {
        uint8_t *p_data;
        size_t bytes;
    } rxtx;
} nrfx_uarte_event_t;
typedef struct {
    NRF_UARTE_Type *p_reg;
    uint8_t drv_inst_idx;
} nrfx_uarte_t;
typedef struct {
    uint32_t baudrate;
    uint8_t interrupt_priority;
} nrfx_uarte_config_t;
/* The handler runs in UARTE0_UART0_IRQHandler (inside the nrfx driver). */
typedef void (*nrfx_uarte_event_handler_t)(const nrfx_uarte_event_t *p_event, void *p_context);
nrfx_err_t nrfx_uarte_init(const nrfx_uarte_t *p_instance, const nrfx_uarte_config_t *p_config,
                           nrfx_uarte_event_handler_t event_handler);
nrfx_err_t nrfx_uarte_rx(const nrfx_uarte_t *p_instance, uint8_t *p_data, size_t length);
#define NRFX_UARTE_INSTANCE(id) {NRF_UARTE0, 0}

void board_init(void);
void ble_notify(const void *data, size_t len);
void log_u32(uint32_t v);
uint32_t average(const volatile int16_t *samples, uint32_t n);

#endif
