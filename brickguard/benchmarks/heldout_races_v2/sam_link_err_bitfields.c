/* SAM E54 serial link error counters packed into one 32-bit word as bit-fields: the SERCOM0
 * handler counts receive overflows, the main loop counts transmit timeouts. */
#include "sam_mini.h"

typedef struct {
    uint32_t rx_overflow : 8; /* SERCOM0_2_Handler */
    uint32_t tx_timeout : 8;  /* main */
    uint32_t reserved : 16;
} link_errors_t;

static volatile link_errors_t g_linkErr;

void SERCOM0_2_Handler(void)
{
    if ((SERCOM0->USART.STATUS & SERCOM_USART_STATUS_BUFOVF) != 0U) {
        SERCOM0->USART.STATUS = SERCOM_USART_STATUS_BUFOVF;
        g_linkErr.rx_overflow++;
    }
    (void)SERCOM0->USART.DATA;
}

static bool send_with_timeout(uint8_t byte)
{
    for (uint32_t spin = 0U; spin < 10000U; spin++) {
        if ((SERCOM0->USART.INTFLAG & 0x01U) != 0U) {
            uart_put(byte);
            return true;
        }
    }
    return false;
}

int main(void)
{
    SYS_Initialize(NULL);
    NVIC_EnableIRQ(SERCOM0_2_IRQn);

    for (;;) {
        if (!send_with_timeout(0x55U)) {
            g_linkErr.tx_timeout++;
        }
        log_event(g_linkErr.rx_overflow);
    }
}
