/* Analysed even though broken.c in the same run does not parse. */
#include "cmsis_stub.h"

volatile uint8_t msg[4];

void SPI1_IRQHandler(void) { msg[0] = 1; }

int main(void)
{
    return msg[0]++;                 /* expect: BG102 */
}
