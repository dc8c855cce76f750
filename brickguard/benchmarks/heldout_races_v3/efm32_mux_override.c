/* Analog front end (EFM32PG12, emlib): the TIMER0 handler steps the input multiplexer through the
 * four background channels every millisecond; main takes an on-demand battery reading by selecting
 * the battery input and applying the selection before it converts. */
#include "efm32pg12_emlib.h"

#define MUX_BATTERY 7U

static volatile uint32_t g_mux_sel;

extern void mux_apply(uint32_t sel);
extern uint32_t adc_convert_blocking(void);
extern void scan_store(uint32_t sel);
extern void battery_report(uint32_t raw);

void TIMER0_IRQHandler(void)
{
    uint32_t flags = TIMER0_IntGetEnabled();
    TIMER0_IntClear(flags);
    scan_store(g_mux_sel);
    g_mux_sel = (g_mux_sel + 1U) % 4U;
    mux_apply(g_mux_sel);
}

static uint32_t battery_read(void)
{
    g_mux_sel = MUX_BATTERY;
    mux_apply(g_mux_sel);
    uint32_t raw = adc_convert_blocking();
    g_mux_sel = 0U;
    return raw;
}

int main(void)
{
    CHIP_Init();
    TIMER0_IntEnable(TIMER_IF_OF);
    NVIC_SetPriority(TIMER0_IRQn, 4U);
    NVIC_EnableIRQ(TIMER0_IRQn);
    for (;;) {
        battery_report(battery_read());
        EMU_EnterEM1();
    }
}
