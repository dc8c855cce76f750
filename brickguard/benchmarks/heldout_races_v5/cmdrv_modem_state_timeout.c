/* Cellular modem bring-up on an STM32F429 using the vendor's CMSIS-Driver USART. main sends the
 * AT commands of the init sequence one at a time and waits for the final result; the driver's
 * event callback (USART3_IRQHandler) receives one byte at a time, assembles response lines and
 * sets the command's result when it sees "OK" or "ERROR"; main gives up on a command after its
 * timeout, retries it up to three times and power-cycles the modem after that (at once when a long
 * command, the network attach, gets no answer: the modem is hung). */
#include "cmsis_driver.h"

enum at_state { AT_IDLE, AT_WAIT, AT_OK, AT_ERROR, AT_TIMEOUT };

struct modem {
    volatile enum at_state state;
    uint32_t deadline_ms;
    uint8_t rx_byte;
    char line[48];
    uint32_t line_len;
    uint32_t lines_seen;
    volatile uint32_t rx_errors;
};

static struct modem g_modem;
static const char *const s_init_seq[] = {"AT\r", "ATE0\r", "AT+CPIN?\r", "AT+CREG=1\r", "AT+CGATT=1\r"};
static const uint32_t s_timeout_ms[] = {300U, 300U, 5000U, 1000U, 75000U};
static uint32_t s_step;
static uint32_t s_retries;
static uint32_t s_power_cycles;

static void line_done(struct modem *m)
{
    m->line[m->line_len] = '\0';
    m->lines_seen++;
    if (m->state != AT_WAIT) {
        return; /* an unsolicited result code such as +CREG: 1 */
    }
    if (strcmp(m->line, "OK") == 0) {
        m->state = AT_OK;
    } else if (strcmp(m->line, "ERROR") == 0 || strncmp(m->line, "+CME ERROR", 10) == 0) {
        m->state = AT_ERROR;
    }
}

static void usart_cb(uint32_t event)
{
    struct modem *m = &g_modem;
    if ((event & (ARM_USART_EVENT_RX_OVERFLOW | ARM_USART_EVENT_RX_FRAMING_ERROR)) != 0U) {
        m->rx_errors++;
    }
    if ((event & ARM_USART_EVENT_RECEIVE_COMPLETE) != 0U) {
        char c = (char)m->rx_byte;
        if (c == '\n') {
            if (m->line_len != 0U) {
                line_done(m);
            }
            m->line_len = 0U;
        } else if (c != '\r' && m->line_len < sizeof(m->line) - 1U) {
            m->line[m->line_len++] = c;
        }
        (void)Driver_USART3.Receive(&m->rx_byte, 1U);
    }
}

static void send_command(struct modem *m, const char *cmd, uint32_t timeout_ms)
{
    m->deadline_ms = board_millis() + timeout_ms;
    m->state = AT_WAIT;
    (void)Driver_USART3.Send(cmd, (uint32_t)strlen(cmd));
}

static void poll_timeout(struct modem *m)
{
    if (m->state == AT_WAIT && (int32_t)(board_millis() - m->deadline_ms) > 0) {
        m->state = AT_TIMEOUT;
    }
}

static void power_cycle(void)
{
    s_power_cycles++;
    printf("modem: power cycle %lu\n", (unsigned long)s_power_cycles);
    dac_chip_select(true); /* PWRKEY on this board shares the DAC's select line driver */
    for (volatile uint32_t i = 0U; i < 2000000U; i++) {
    }
    dac_chip_select(false);
    s_step = 0U;
    s_retries = 0U;
}

int main(void)
{
    struct modem *m = &g_modem;
    board_init();
    (void)Driver_USART3.Initialize(usart_cb);
    (void)Driver_USART3.PowerControl(ARM_POWER_FULL);
    (void)Driver_USART3.Control(ARM_USART_MODE_ASYNCHRONOUS | ARM_USART_DATA_BITS_8, 115200U);
    (void)Driver_USART3.Control(ARM_USART_CONTROL_TX, 1U);
    (void)Driver_USART3.Control(ARM_USART_CONTROL_RX, 1U);
    (void)Driver_USART3.Receive(&m->rx_byte, 1U);
    while (s_step < sizeof(s_init_seq) / sizeof(s_init_seq[0])) {
        send_command(m, s_init_seq[s_step], s_timeout_ms[s_step]);
        while (m->state == AT_WAIT) {
            poll_timeout(m);
        }
        if (m->state == AT_OK) {
            s_step++;
            s_retries = 0U;
        } else if (m->state == AT_TIMEOUT && s_timeout_ms[s_step] > 10000U) {
            power_cycle(); /* no answer to a long command: the modem is hung */
        } else if (++s_retries > 3U) {
            power_cycle();
        }
    }
    printf("modem attached (%lu lines, %lu rx errors)\n", (unsigned long)m->lines_seen,
           (unsigned long)m->rx_errors);
    for (;;) {
    }
}
