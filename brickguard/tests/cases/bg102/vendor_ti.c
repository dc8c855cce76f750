/* TI driverlib (MSP432): Interrupt_disableMaster()/Interrupt_enableMaster() is a critical
   section, Interrupt_disableInterrupt(INT_EUSCIA0) masks EUSCIA0's line only, and a handler
   given to Interrupt_registerInterrupt / Timer32_registerInterrupt runs in that interrupt. */
#include "cmsis_stub.h"

#define INT_EUSCIA0 (16 + 16)
#define INT_T32_INT1 (16 + 25)
#define TIMER32_0_INTERRUPT INT_T32_INT1
#include <stdbool.h>
bool Interrupt_disableMaster(void);
bool Interrupt_enableMaster(void);
void Interrupt_disableInterrupt(uint32_t interruptNumber);
void Interrupt_enableInterrupt(uint32_t interruptNumber);
void Interrupt_registerInterrupt(uint32_t interruptNumber, void (*intHandler)(void));
void Timer32_registerInterrupt(uint32_t timerInterrupt, void (*intHandler)(void));

volatile uint32_t bytes, periods;

void EUSCIA0_IRQHandler(void)
{
    bytes++;
}

static void on_period(void)
{
    periods++;
}

int main(void)
{
    Timer32_registerInterrupt(TIMER32_0_INTERRUPT, on_period);
    Interrupt_enableInterrupt(INT_EUSCIA0);
    periods--;                       /* expect: BG102 */
    Interrupt_disableMaster();
    periods--;                       /* interrupts are off */
    bytes--;
    Interrupt_enableMaster();
    Interrupt_disableInterrupt(INT_EUSCIA0);
    bytes--;                         /* EUSCIA0's line is masked */
    periods--;                       /* expect: BG102 */
    Interrupt_enableInterrupt(INT_EUSCIA0);
    return 0;
}
