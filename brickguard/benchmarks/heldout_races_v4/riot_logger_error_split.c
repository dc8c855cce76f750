/* Data logger: main writes a log page to flash and checks the error code its flash helper
 * leaves in the shared error variable; the UART receive callback records framing errors (a
 * 0xFF byte from the modem) in a variable of its own, which main reports. */
#include "riot.h"

#define ERR_NONE 0
#define ERR_FLASH 1
#define ERR_FRAMING 2

static volatile int g_last_error;
static volatile int g_uart_error;
static volatile uint8_t g_last_rx;
static uint8_t s_page_buf[256];

static void rx_cb(void *arg, uint8_t data)
{
    (void)arg;
    if (data == 0xFFU) {
        g_uart_error = ERR_FRAMING;
        return;
    }
    g_last_rx = data;
}

static void flash_store(uint32_t page, const uint8_t *data)
{
    if (!flash_page_write_raw(page, data)) {
        g_last_error = ERR_FLASH;
    }
}

int main(void)
{
    uint32_t page = 16U;
    uart_init(UART_DEV(1), 9600U, rx_cb, NULL);
    for (;;) {
        s_page_buf[0] = g_last_rx;
        g_last_error = ERR_NONE;
        flash_store(page, s_page_buf);
        if (g_last_error != ERR_NONE) {
            flash_mark_bad(page);
        }
        log_page(page, s_page_buf[0]);
        if (g_uart_error != ERR_NONE) {
            g_uart_error = ERR_NONE;
            report_uart_error(ERR_FRAMING);
        }
        page = (page == 63U) ? 16U : page + 1U;
        ztimer_sleep(ZTIMER_MSEC, 1000U);
    }
    return 0;
}
