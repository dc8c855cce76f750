/* Dosing station, SAM3X8E with ASF3. An emergency-stop button on PA15 (handler registered with
 * pio_handler_set, run from PIOA_Handler) aborts a dose at any time; TC0 counts flow pulses; the
 * UART receives one-byte commands; main runs the dose state machine. */
#include "asf3_sam3x.h"

enum dose_state { ST_IDLE, ST_PRIMING, ST_DOSING, ST_DONE, ST_ABORTED };

static volatile enum dose_state g_state = ST_IDLE;
static volatile uint32_t g_dosed_ml;     /* written by TC0_Handler */
static volatile uint32_t g_aborts;       /* written by the stop handler */
static volatile uint8_t g_cmd;           /* one-slot mailbox: UART fills, main empties */
static volatile uint32_t g_ticks;        /* written by SysTick_Handler */
static uint32_t s_target_ml;             /* main only */
static uint32_t s_prime_start;           /* main only */

static void stop_pressed(uint32_t id, uint32_t mask)
{
    (void)id;
    (void)mask;
    motor_enable(false);
    g_state = ST_ABORTED;
    g_aborts++;
}

void TC0_Handler(void)
{
    if (tc_get_status(TC0, 0U) & TC_SR_CPCS) {
        g_dosed_ml++;
    }
}

void UART_Handler(void)
{
    if ((UART->UART_SR & UART_SR_RXRDY) != 0U) {
        uint8_t c = (uint8_t)UART->UART_RHR;
        if (g_cmd == 0U) {
            g_cmd = c;
        }
    }
}

void SysTick_Handler(void)
{
    g_ticks++;
}

static void start_dose(uint32_t ml)
{
    s_target_ml = ml;
    g_dosed_ml = 0U;
    s_prime_start = g_ticks;
    g_state = ST_PRIMING;
}

static void step(void)
{
    switch (g_state) {
    case ST_IDLE:
        if (g_cmd == 'D') {
            start_dose(250U);
        }
        break;
    case ST_PRIMING:
        if (g_ticks - s_prime_start >= 500U) {
            motor_enable(true);
            g_state = ST_DOSING;
        }
        break;
    case ST_DOSING:
        if (g_dosed_ml >= s_target_ml) {
            motor_enable(false);
            g_state = ST_DONE;
        }
        break;
    case ST_DONE:
        printf_uart("dosed %lu ml\n", (unsigned long)g_dosed_ml);
        g_state = ST_IDLE;
        break;
    case ST_ABORTED:
        printf_uart("abort #%lu\n", (unsigned long)g_aborts);
        if (g_cmd == 'R') {
            g_state = ST_IDLE;
        }
        break;
    }
    g_cmd = 0U;
}

int main(void)
{
    sysclk_init();
    board_init();
    pmc_enable_periph_clk(ID_PIOA);
    pmc_enable_periph_clk(ID_TC0);
    pio_handler_set(PIOA, ID_PIOA, PIO_PA15, PIO_IT_FALL_EDGE, stop_pressed);
    pio_enable_interrupt(PIOA, PIO_PA15);
    tc_init(TC0, 0U, 0U);
    tc_enable_interrupt(TC0, 0U, TC_SR_CPCS);
    tc_start(TC0, 0U);
    NVIC_SetPriority(PIOA_IRQn, 1U);
    NVIC_SetPriority(TC0_IRQn, 2U);
    NVIC_SetPriority(UART_IRQn, 3U);
    NVIC_EnableIRQ(PIOA_IRQn);
    NVIC_EnableIRQ(TC0_IRQn);
    NVIC_EnableIRQ(UART_IRQn);
    for (;;) {
        step();
    }
}
