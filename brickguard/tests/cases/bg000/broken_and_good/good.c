/* Analysed even though broken.c in the same run does not parse. */
#include "cmsis_stub.h"

volatile uint8_t msg[4];

void SPI1_IRQHandler(void) { msg[0] = 1; }

int main(void)
{
    __enable_irq();                  /* from here on a handler can fire */
    return msg[0]++;                 /* expect: BG102 */
}
