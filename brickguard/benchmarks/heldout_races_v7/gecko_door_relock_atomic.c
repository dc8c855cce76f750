/* Door lock on an EFM32GG11 (Gecko SDK). A 4-digit code typed on the RS-232 keypad (USART0 RX
 * interrupt) unlocks; 5 s later a sleeptimer callback relocks unless the door has been opened.
 * The bolt motor runs for 800 ms, ended by a second sleeptimer callback. Both callbacks run from
 * the RTCC interrupt (priority 5). main polls the door contact (PA2, high = open). */
#include "em_gecko.h"

#define ST_LOCKED 0U
#define ST_UNLOCKED 1U
#define ST_LOCKING 2U
#define ST_OPEN 3U
#define RELOCK_MS 5000U
#define MOTOR_MS 800U

static volatile uint32_t s_state = ST_LOCKED;
static sl_sleeptimer_timer_handle_t s_relock_timer;
static sl_sleeptimer_timer_handle_t s_motor_timer;
static volatile uint8_t s_code[4];
static volatile uint32_t s_code_len;
static volatile uint32_t s_bad_codes;
static const uint8_t k_code[4] = { '2', '5', '8', '0' };

static void motor(int dir)
{
    if (dir > 0) {
        GPIO_PinOutSet(gpioPortE, 0U);
        GPIO_PinOutClear(gpioPortE, 1U);
    } else if (dir < 0) {
        GPIO_PinOutClear(gpioPortE, 0U);
        GPIO_PinOutSet(gpioPortE, 1U);
    } else {
        GPIO_PinOutClear(gpioPortE, 0U);
        GPIO_PinOutClear(gpioPortE, 1U);
    }
}

static void motor_done_cb(sl_sleeptimer_timer_handle_t *handle, void *data)
{
    (void)handle;
    (void)data;
    motor(0);
    if (s_state == ST_LOCKING) {
        s_state = ST_LOCKED;
    }
}

static void relock_cb(sl_sleeptimer_timer_handle_t *handle, void *data)
{
    (void)handle;
    (void)data;
    if (s_state == ST_UNLOCKED) {
        motor(1);
        s_state = ST_LOCKING;
        (void)sl_sleeptimer_start_timer(&s_motor_timer, sl_sleeptimer_ms_to_tick(MOTOR_MS),
                                        motor_done_cb, NULL, 0U, 0U);
    }
}

void USART0_RX_IRQHandler(void)
{
    uint8_t c = USART_Rx(USART0);
    if ((s_code_len < 4U) && (c >= (uint8_t)'0') && (c <= (uint8_t)'9')) {
        s_code[s_code_len] = c;
        s_code_len++;
    }
}

static bool code_matches(void)
{
    bool ok = true;
    for (uint32_t i = 0U; i < 4U; i++) {
        if (s_code[i] != k_code[i]) {
            ok = false;
        }
    }
    return ok;
}

static void unlock(void)
{
    motor(-1);
    sl_sleeptimer_delay_millisecond(MOTOR_MS);
    motor(0);
    s_state = ST_UNLOCKED;
    (void)sl_sleeptimer_start_timer(&s_relock_timer, sl_sleeptimer_ms_to_tick(RELOCK_MS),
                                    relock_cb, NULL, 0U, 0U);
}

int main(void)
{
    CHIP_Init();
    GPIO_PinModeSet(gpioPortA, 2U, gpioModeInputPull, 0U);
    GPIO_PinModeSet(gpioPortE, 0U, gpioModePushPull, 0U);
    GPIO_PinModeSet(gpioPortE, 1U, gpioModePushPull, 0U);
    (void)sl_sleeptimer_init();
    NVIC_SetPriority(RTCC_IRQn, 5U);
    NVIC_SetPriority(USART0_RX_IRQn, 6U);
    USART_IntEnable(USART0, USART_IF_RXDATAV);
    NVIC_EnableIRQ(USART0_RX_IRQn);

    for (;;) {
        bool open = GPIO_PinInGet(gpioPortA, 2U) != 0U;
        CORE_DECLARE_IRQ_STATE;
        if (s_code_len == 4U) {
            if ((s_state == ST_LOCKED) && code_matches()) {
                unlock();
            } else {
                s_bad_codes++;
            }
            s_code_len = 0U;
        }
        CORE_ENTER_ATOMIC();
        if (open && (s_state == ST_UNLOCKED)) {
            (void)sl_sleeptimer_stop_timer(&s_relock_timer);
            s_state = ST_OPEN;
        }
        CORE_EXIT_ATOMIC();
        if (!open && (s_state == ST_OPEN)) {
            s_state = ST_UNLOCKED;
            (void)sl_sleeptimer_start_timer(&s_relock_timer, sl_sleeptimer_ms_to_tick(RELOCK_MS),
                                            relock_cb, NULL, 0U, 0U);
        }
        app_log("state %lu bad %lu\n", (unsigned long)s_state, (unsigned long)s_bad_codes);
        sl_sleeptimer_delay_millisecond(20U);
    }
}
