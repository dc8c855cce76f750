/* Line input on USART0 (EFM32PG12, emlib): the RX handler collects one line and flags it. */
#include <stdbool.h>
#include "efm32pg12_emlib.h"

#define LINE_MAX 80U

static char line[LINE_MAX];
static uint32_t line_len;
static bool line_ready;

void USART0_RX_IRQHandler(void)
{
    uint32_t flags = USART_IntGetEnabled(USART0);
    USART_IntClear(USART0, flags);
    if ((flags & USART_IF_RXDATAV) == 0U) {
        return;
    }
    char c = (char)USART_RxDataGet(USART0);
    if (line_ready) {
        return; /* main still owns the line: drop */
    }
    if (c == '\n' || line_len == LINE_MAX - 1U) {
        line[line_len] = '\0';
        line_ready = true;
    } else {
        line[line_len++] = c;
    }
}

extern void at_command(const char *text, uint32_t len);

int main(void)
{
    CHIP_Init();
    NVIC_SetPriority(USART0_RX_IRQn, 2U);
    USART_IntEnable(USART0, USART_IF_RXDATAV);
    NVIC_EnableIRQ(USART0_RX_IRQn);
    for (;;) {
        while (!line_ready) {
        }
        __DMB();
        at_command(line, line_len);
        line_len = 0U;
        __DMB();
        line_ready = false;
    }
}
