/* TI driverlib's Interrupt_setPriority(n, 0x20) takes the NVIC register byte, the level in its
   top __NVIC_PRIO_BITS (3 here: 0x20 is level 1, 0x40 level 2), and
   Interrupt_setPriorityMask(v) writes BASEPRI = v, masking the levels numerically >= v's. */
#include <stdbool.h>
#include "cmsis_stub.h"

#define __NVIC_PRIO_BITS 3U
typedef enum { ADC14_IRQn = 24, T32_INT1_IRQn = 25, PORT1_IRQn = 35 } IRQn_Type;
#define INT_ADC14 (ADC14_IRQn + 16)
#define INT_T32_INT1 (T32_INT1_IRQn + 16)
#define INT_PORT1 (PORT1_IRQn + 16)
void Interrupt_setPriority(uint32_t interruptNumber, uint8_t priority);
void Interrupt_setPriorityMask(uint8_t priorityMask);
bool Interrupt_enableMaster(void);

volatile uint32_t samples;  /* ADC14 at level 1 */
volatile uint32_t edges;    /* PORT1 at level 2, T32 at level 1 preempts it */
volatile uint32_t ticks;    /* T32 at level 1 */

void ADC14_IRQHandler(void)
{
    samples++;
}

void T32_INT1_IRQHandler(void)
{
    edges++;
    ticks++;
}

void PORT1_IRQHandler(void)
{
    edges++;  /* expect: BG102 */
}

int main(void)
{
    Interrupt_setPriority(INT_ADC14, 0x20);
    Interrupt_setPriority(INT_T32_INT1, 0x20);
    Interrupt_setPriority(INT_PORT1, 0x40);
    Interrupt_enableMaster();
    for (;;) {
        Interrupt_setPriorityMask(0x20);  /* masks levels 1..7: ADC14 too */
        uint32_t n = samples;
        samples = 0u;
        Interrupt_setPriorityMask(0x40);  /* masks levels 2..7: not T32 (level 1) */
        uint32_t t = ticks;
        ticks = 0u;  /* expect: BG101 */
        Interrupt_setPriorityMask(0);
        (void)n;
        (void)t;
    }
}
