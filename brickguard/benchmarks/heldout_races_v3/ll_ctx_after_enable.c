/* Command port on USART1: the handler feeds bytes to a parser context chosen at start-up.
 * STM32G4 LL drivers. */
#include <stddef.h>
#include "stm32g4_ll.h"

struct cmd_port {
    USART_TypeDef *uart;
    void (*on_byte)(uint8_t b);
};

extern void parser_feed(uint8_t b);
extern void parser_poll(void);

static const struct cmd_port s_port1 = {USART1, parser_feed};
static const struct cmd_port *g_cmd;
static volatile uint32_t g_last_byte;
static uint32_t s_isr_crc;

void USART1_IRQHandler(void)
{
    if (LL_USART_IsActiveFlag_RXNE(USART1) != 0U) {
        uint8_t b = LL_USART_ReceiveData8(g_cmd->uart);
        s_isr_crc = (s_isr_crc << 1) ^ b;
        g_last_byte = b;
        g_cmd->on_byte(b);
    }
}

int main(void)
{
    SystemClock_Config();
    NVIC_SetPriority(USART1_IRQn, 6U);
    LL_USART_EnableIT_RXNE(USART1);
    NVIC_EnableIRQ(USART1_IRQn);
    g_cmd = &s_port1;
    for (;;) {
        parser_poll();
        if (g_last_byte == 0x1BU) {
            parser_feed(0U);
        }
    }
}
