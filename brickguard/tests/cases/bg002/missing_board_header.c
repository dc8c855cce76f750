/* A project header that is not there (the Discovery board's BSP header is missing from many
   checkouts): reported once (BG000), the file parsed on, the function that uses what it declared
   named as analysed in part (BG002), and the rules still run on the rest of the file (BG102). */
#include "cmsis_stub.h"
#include "stm32f4_discovery_missing.h"   /* expect: BG000 */

volatile uint32_t presses;

void EXTI0_IRQHandler(void)
{
    presses++;
}

void blink(void)                         /* expect: BG002 */
{
    BSP_LED_Toggle(LED4);
}

int main(void)
{
    __enable_irq();
    blink();
    presses++;                           /* expect: BG102 */
    return 0;
}
