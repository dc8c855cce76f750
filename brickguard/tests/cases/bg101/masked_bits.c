/* Two reads of one fault word under constant masks. The task looks at the trip bits, then,
   later, at the warning bit: two disjoint parts of the word, each loaded once, so a handler
   store between them changes no value the task reads twice (as two variables would be). Kept
   (races): ``status``, read under two masks that share a bit (bit 0 is tested, then used). */
#include "cmsis_stub.h"

#define TRIP_HI (1u << 0)
#define TRIP_OVER (1u << 1)
#define TRIP (TRIP_HI | TRIP_OVER)
#define WARN (1u << 2)

volatile uint32_t faults;
volatile uint32_t status;

uint32_t adc_read(void);
void stop(uint32_t why);
void slow(void);

void ADC_IRQHandler(void)
{
    uint32_t v = adc_read();
    if (v > 4000u) {
        faults |= TRIP;
        faults |= WARN;
        status |= 0x1u;
    }
}

int main(void)
{
    for (;;) {
        uint32_t trip = faults & TRIP;
        if (trip != 0u) {
            stop(trip);
        }
        if ((faults & WARN) != 0u) {       /* another part: no check-then-use of the trip bits */
            slow();
        }
        if ((status & 0x1u) != 0u) {
            stop(status & 0x3u);           /* expect: BG101 */
        }
    }
}
