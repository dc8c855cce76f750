/* Report transmitter on USART0 (EFM32PG12, emlib): main fills the message while it owns it, then
 * hands it to the TX handler and sets the length; the handler hands it back when the last byte is
 * out. */
#include <stdbool.h>
#include "efm32pg12_emlib.h"

#define OWNER_APP 0U
#define OWNER_ISR 1U

static uint8_t tx_msg[64];
static uint32_t tx_len;
static uint32_t tx_pos;
static volatile uint32_t tx_owner = OWNER_APP;

void USART0_TX_IRQHandler(void)
{
    if (tx_pos < tx_len) {
        USART_TxDataPut(USART0, tx_msg[tx_pos++]);
    } else {
        USART_IntDisable(USART0, USART_IF_TXBL);
        tx_owner = OWNER_APP;
    }
}

extern uint32_t report_format(uint8_t *out, uint32_t cap);

static void report_send(void)
{
    while (tx_owner != OWNER_APP) {
    }
    __DMB();
    uint32_t len = report_format(tx_msg, sizeof tx_msg);
    tx_pos = 0U;
    __DMB();
    tx_owner = OWNER_ISR;
    USART_IntEnable(USART0, USART_IF_TXBL);
    tx_len = len;
}

int main(void)
{
    CHIP_Init();
    NVIC_SetPriority(USART0_TX_IRQn, 3U);
    NVIC_EnableIRQ(USART0_TX_IRQn);
    for (;;) {
        report_send();
        EMU_EnterEM1();
    }
}
