/* Pressure sensor sequencer: the periodic CTIMER A0 handler reads the sensor; in WARMUP a
 * reading moves the state to DONE. An over-pressure alarm (0xFFFF, cleared by the read) moves
 * any state to FAULT, and every alarm must reach the fault report. Main drives the rest. */
#include "am_mcu_apollo.h"

enum sensor_state { ST_IDLE, ST_WARMUP, ST_DONE, ST_FAULT };

static volatile enum sensor_state g_state = ST_IDLE;
static volatile uint32_t g_result;

void am_ctimer_isr(void)
{
    uint32_t status = am_hal_ctimer_int_status_get(true);
    am_hal_ctimer_int_clear(status);
    uint32_t raw = am_hal_ctimer_read(0U, AM_HAL_CTIMER_TIMERA);
    if (raw == 0xFFFFU) {
        g_state = ST_FAULT;
    } else if (g_state == ST_WARMUP) {
        g_result = raw;
        g_state = ST_DONE;
    }
}

int main(void)
{
    am_bsp_low_power_init();
    am_hal_ctimer_int_enable(AM_HAL_CTIMER_INT_TIMERA0);
    NVIC_SetPriority(CTIMER_IRQn, AM_IRQ_PRIORITY_DEFAULT);
    NVIC_EnableIRQ(CTIMER_IRQn);
    am_hal_ctimer_start(0U, AM_HAL_CTIMER_TIMERA);
    for (;;) {
        enum sensor_state st = g_state;
        if (st == ST_IDLE) {
            sensor_power(true);
            g_state = ST_WARMUP;
        } else if (st == ST_DONE) {
            report_pressure(g_result);
            g_state = ST_IDLE;
        } else if (st == ST_FAULT) {
            report_fault();
            g_state = ST_IDLE;
        }
        am_hal_delay_us(1000U);
    }
}
