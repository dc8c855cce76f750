/* Geiger counter on a PSoC 4200 (PSoC Creator): the tube's pulse pin fires isr_Pulse on every
 * click; every second the Counter's terminal count interrupt wakes main, which turns the clicks
 * into counts per minute and zeroes the tally. */
#include "psoc4.h"

static volatile uint32 s_clicks;
static volatile uint8 s_second_elapsed;
static uint32 s_cpm_window[60];
static uint8 s_slot;

CY_ISR(PulseIsr)
{
    Pin_Door_ClearInterrupt();
    s_clicks++;
}

CY_ISR(SecondIsr)
{
    Counter_ClearInterrupt(Counter_INTR_MASK_TC);
    s_second_elapsed = 1U;
}

int main(void)
{
    Counter_Start();
    isr_Pulse_StartEx(PulseIsr);
    isr_Tick_StartEx(SecondIsr);
    CyGlobalIntEnable;
    for (;;) {
        while (s_second_elapsed == 0U) {
        }
        s_second_elapsed = 0U;
        uint8 state = CyEnterCriticalSection();
        uint32 clicks = s_clicks;
        s_clicks = 0U;
        CyExitCriticalSection(state);
        s_cpm_window[s_slot] = clicks;
        s_slot = (uint8)((s_slot + 1U) % 60U);
        uint32 cpm = 0U;
        for (uint8 i = 0U; i < 60U; i++) {
            cpm += s_cpm_window[i];
        }
        Pwm_WriteCompare(cpm > 999U ? 999U : cpm);
    }
}
