/* Microchip Harmony 3: SYS_INT_Disable()/SYS_INT_Restore(state) is a critical section,
   SYS_INT_SourceDisable(USART1_IRQn) masks that line, and the callback given to
   USART1_ReadCallbackRegister(callback, context) runs in USART1's interrupt. */
#include "cmsis_stub.h"
#include <stdbool.h>

typedef enum { USART1_IRQn = 14, TC0_IRQn = 23 } IRQn_Type;
typedef IRQn_Type INT_SOURCE;
typedef void (*USART_CALLBACK)(uintptr_t context);
void USART1_ReadCallbackRegister(USART_CALLBACK callback, uintptr_t context);
bool SYS_INT_Disable(void);
void SYS_INT_Restore(bool state);
bool SYS_INT_SourceDisable(INT_SOURCE source);
void SYS_INT_SourceRestore(INT_SOURCE source, bool status);

volatile uint32_t reads, overflows;

static void on_read(uintptr_t context)
{
    (void)context;
    reads++;
}

void TC0_InterruptHandler(void)  /* the PLIB handler the vector table calls */
{
    overflows++;
}

int main(void)
{
    USART1_ReadCallbackRegister(on_read, 0);
    reads--;                         /* expect: BG102 */
    bool state = SYS_INT_Disable();
    reads--;                         /* global interrupts off */
    overflows--;
    SYS_INT_Restore(state);
    bool line = SYS_INT_SourceDisable(USART1_IRQn);
    reads--;                         /* USART1's line masked: its read callback cannot run */
    overflows--;                     /* expect: BG102 */
    SYS_INT_SourceRestore(USART1_IRQn, line);
    return 0;
}
