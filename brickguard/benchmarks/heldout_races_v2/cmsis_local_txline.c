/* Bare CMSIS: both the main loop (periodic status) and the GPIO0 handler (alarm input) format a
 * text line and send it on UART0 byte by byte; each formats into its own buffer (the handler's
 * static, the main loop's on its stack). An alarm line may appear between two characters of a
 * status line, which the host's line parser accepts (it splits on the tag letters). */
#include "cmsis_dev.h"

#define LINE_LEN 12U

static char g_alarmLine[LINE_LEN]; /* handler only */

static void format_u32(char *out, char tag, uint32_t v)
{
    out[0] = tag;
    for (uint32_t i = 0U; i < 8U; i++) {
        uint32_t nib = (v >> (28U - 4U * i)) & 0xFU;
        out[1U + i] = (char)((nib < 10U) ? ('0' + nib) : ('A' + nib - 10U));
    }
    out[9] = '\r';
    out[10] = '\n';
    out[11] = '\0';
}

static void send_line(const char *line)
{
    for (uint32_t i = 0U; line[i] != '\0'; i++) {
        uart_send_byte((uint8_t)line[i]);
    }
}

void GPIO0_IRQHandler(void)
{
    uint32_t stat = ACME_GPIO0->INTSTAT;
    ACME_GPIO0->INTSTAT = stat;
    format_u32(g_alarmLine, 'A', stat);
    send_line(g_alarmLine);
}

int main(void)
{
    system_init();
    NVIC_EnableIRQ(GPIO0_IRQn);

    for (;;) {
        char status[LINE_LEN];
        format_u32(status, 'S', read_sensor());
        send_line(status);
    }
}
