/* A suppression whose rule ID is misspelt hides nothing and is itself reported (BG001); a
   correct one and the wildcard are fine. The BG102s are the analysis' own: suppressions are
   applied to the report, after it. */
#include "cmsis_stub.h"

volatile uint32_t ticks;

void SysTick_Handler(void)
{
    ticks++;
}

int main(void)
{
    __enable_irq();
    ticks++; // brickguard: ignore[BG1O2] reviewed      /* expect: BG001, BG102 */
    ticks++; // brickguard: ignore[BG102] reviewed: the tick is advisory  /* expect: BG102 */
    ticks++; // brickguard: ignore[bg102, BG999] one good, one unknown   /* expect: BG001, BG102 */
    ticks++; // brickguard: ignore[*] generated code  /* expect: BG102 */
    return 0;
}
