/* Per-instance interrupt components (PSoC Creator generates isr_<Name>_StartEx and
   isr_<Name>_SetPriority for each one): the setter's name says the component, its one argument
   the priority; the handler handed to the same component's StartEx runs at it. isr_Rx (1)
   preempts isr_Adc (2); isr_Tick shares isr_Adc's level. */
#include <stdint.h>

typedef void (*cyisraddress)(void);
void isr_Rx_StartEx(cyisraddress address);
void isr_Rx_SetPriority(uint32_t priority);
void isr_Adc_StartEx(cyisraddress address);
void isr_Adc_SetPriority(uint32_t priority);
void isr_Tick_StartEx(cyisraddress address);
void isr_Tick_SetPriority(uint32_t priority);

volatile uint32_t events, ticks;

static void RxIsr(void)
{
    events |= 1u;
}

static void AdcIsr(void)
{
    events |= 2u;                /* expect: BG102 */
    ticks &= ~1u;                /* isr_Tick is at the same level: no preemption */
}

static void TickIsr(void)
{
    ticks |= 1u;
}

int main(void)
{
    isr_Rx_StartEx(RxIsr);
    isr_Adc_StartEx(AdcIsr);
    isr_Tick_StartEx(TickIsr);
    isr_Rx_SetPriority(1u);
    isr_Adc_SetPriority(2u);
    isr_Tick_SetPriority(2u);
    for (;;) {
    }
}
