/* Vector names of the CMSIS kind `<PERIPH>_Handler` (Microchip SAM: TC3_Handler,
   SERCOM0_2_Handler): an interrupt handler when the device header defines `<PERIPH>_IRQn`.
   ST's `Error_Handler` is an ordinary function: no device defines `Error_IRQn`. */
#include "cmsis_stub.h"

typedef enum { SysTick_IRQn = -1, TC3_IRQn = 110, SERCOM0_2_IRQn = 48 } IRQn_Type;
void NVIC_EnableIRQ(IRQn_Type irq);

volatile uint32_t overflows;  /* updated by a vector: a race */
volatile uint32_t errors;     /* updated by Error_Handler: task code, no race */

void TC3_Handler(void)
{
    overflows++;
}

void Error_Handler(void)
{
    errors++;
}

int main(void)
{
    NVIC_EnableIRQ(TC3_IRQn);
    for (;;) {
        overflows -= 1u;  /* expect: BG102 */
        if (errors > 3u) {
            errors = 0u;
        }
        Error_Handler();
    }
}
