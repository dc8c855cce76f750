/* Pump motor controller on a Kinetis K22F with KSDK 1.3. FTM0 drives the bridge; the ADC0
 * conversion-complete interrupt (phase current, triggered by FTM0 at 20 kHz) latches an
 * over-current fault and stops the bridge at once; the 1 ms PIT0 tick samples the heatsink
 * temperature, latches an over-temperature fault and flags a hot warning (main derates by 1%
 * and clears the warning); commands come from the service UART through
 * the SDK's receive callback. main runs the state machine: IDLE -> RAMP -> RUN, any fault -> FAULT,
 * and an 'A' (acknowledge) clears the faults the operator has seen and restarts. */
#include "ksdk1.h"

#define FAULT_OVERCURRENT (1U << 0)
#define FAULT_OVERTEMP (1U << 1)
#define WARN_HOT (1U << 2)
#define FAULT_MASK (FAULT_OVERCURRENT | FAULT_OVERTEMP)
#define CURRENT_LIMIT_MA 9000U
#define TEMP_WARN_C 80
#define TEMP_LIMIT_C 95
#define ADC_INST 0U
#define FTM_INST 0U

enum pump_state { PUMP_IDLE, PUMP_RAMP, PUMP_RUN, PUMP_FAULT };

static volatile uint32_t g_faults;
static volatile uint32_t g_current_ma;
static volatile int32_t g_temp_c;
static volatile uint32_t g_ms;
static volatile uint8_t g_cmd;
static volatile uint32_t g_cmd_overflows;
static uint8_t s_rx_byte;
static uart_state_t s_uart_state;
static enum pump_state s_state = PUMP_IDLE;
static uint16_t s_duty;
static uint32_t s_fault_seen;

void ADC0_IRQHandler(void)
{
    uint32_t ma = (uint32_t)ADC16_DRV_GetConvValueRAW(ADC_INST, 0U) * 3U;
    g_current_ma = ma;
    if (ma > CURRENT_LIMIT_MA) {
        FTM_DRV_PwmStop(FTM_INST, 0U);
        g_faults |= FAULT_OVERCURRENT;
    }
}

void PIT0_IRQHandler(void)
{
    PIT_DRV_ClearIntFlag(0U, 0U);
    g_ms++;
    int32_t t = ((int32_t)ADC16_DRV_GetConvValueRAW(ADC_INST, 1U) - 500) / 10;
    g_temp_c = t;
    if (t > TEMP_LIMIT_C) {
        g_faults |= FAULT_OVERTEMP;
    } else if (t > TEMP_WARN_C) {
        g_faults |= WARN_HOT;
    }
}

static void uart_rx_cb(uint32_t instance, void *state)
{
    (void)instance;
    (void)state;
    if (g_cmd != 0U) {
        g_cmd_overflows++;
        return;
    }
    g_cmd = s_rx_byte;
}

static void step(uint8_t cmd)
{
    uint32_t faults = g_faults & FAULT_MASK;
    if (faults != 0U && s_state != PUMP_FAULT) {
        FTM_DRV_PwmStop(FTM_INST, 0U);
        s_state = PUMP_FAULT;
        s_fault_seen = faults;
        dbg_printf("fault 0x%lx at %lu ms, %lu mA, %ld C\n", (unsigned long)faults, (unsigned long)g_ms,
                   (unsigned long)g_current_ma, (long)g_temp_c);
    }
    switch (s_state) {
    case PUMP_IDLE:
        if (cmd == 'S') {
            s_duty = 100U;
            s_state = PUMP_RAMP;
        }
        break;
    case PUMP_RAMP:
        s_duty = (uint16_t)(s_duty + 5U);
        FTM_DRV_PwmSetDuty(FTM_INST, 0U, s_duty);
        if (s_duty >= 700U) {
            s_state = PUMP_RUN;
        }
        break;
    case PUMP_RUN:
        if ((g_faults & WARN_HOT) != 0U) {
            s_duty = (uint16_t)(s_duty - 10U);
            FTM_DRV_PwmSetDuty(FTM_INST, 0U, s_duty);
            g_faults &= ~WARN_HOT;
        }
        if (cmd == 'X') {
            FTM_DRV_PwmStop(FTM_INST, 0U);
            s_state = PUMP_IDLE;
        }
        break;
    case PUMP_FAULT:
        if (cmd == 'A') {
            g_faults &= ~s_fault_seen;
            s_state = PUMP_IDLE;
        }
        break;
    }
}

int main(void)
{
    pit_user_config_t tick = {.isInterruptEnabled = true, .periodUs = 1000U};
    uart_user_config_t ucfg = {.baudRate = 115200U};
    uint32_t last_ms = 0U;
    hardware_init();
    OSA_Init();
    UART_DRV_Init(1U, &s_uart_state, &ucfg);
    UART_DRV_InstallRxCallback(1U, uart_rx_cb, &s_rx_byte, NULL, true);
    PIT_DRV_Init(0U, false);
    PIT_DRV_InitChannel(0U, 0U, &tick);
    NVIC_SetPriority(ADC0_IRQn, 1U);
    NVIC_SetPriority(PIT0_IRQn, 1U);
    INT_SYS_EnableIRQ(ADC0_IRQn);
    INT_SYS_EnableIRQ(PIT0_IRQn);
    PIT_DRV_StartTimer(0U, 0U);
    for (;;) {
        if (g_ms - last_ms < 10U) {
            continue;
        }
        last_ms = g_ms;
        uint8_t cmd = g_cmd;
        if (cmd != 0U) {
            g_cmd = 0U;
        }
        step(cmd);
    }
    return 0;
}
