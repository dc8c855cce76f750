/* Command shell on a CC2538 node with Contiki-NG: the UART input callback (run in the UART
 * interrupt) collects a line and polls the shell process, which parses "set <ch> <value>" and
 * "get <ch>" and prints the answer. The host tool sends its commands back to back. */
#include "contiki.h"

#define LINE_MAX 40U

static char s_line[LINE_MAX];
static volatile uint8_t g_len;
static uint16_t s_values[8];
static uint32_t s_bad;

PROCESS(shell_process, "shell");

static int uart_input(unsigned char c)
{
    if (c == '\n') {
        s_line[g_len] = '\0';
        g_len = 0U;
        process_poll(&shell_process);
    } else if (g_len < LINE_MAX - 1U) {
        s_line[g_len] = (char)c;
        g_len = (uint8_t)(g_len + 1U);
    }
    return 1;
}

static unsigned number(const char *p)
{
    unsigned v = 0U;
    while (*p >= '0' && *p <= '9') {
        v = v * 10U + (unsigned)(*p++ - '0');
    }
    return v;
}

static void execute(const char *line)
{
    if (strncmp(line, "set ", 4) == 0 && line[4] >= '0' && line[4] <= '7' && line[5] == ' ') {
        s_values[line[4] - '0'] = (uint16_t)number(&line[6]);
        printf("ok set %c\n", line[4]);
    } else if (strncmp(line, "get ", 4) == 0 && line[4] >= '0' && line[4] <= '7') {
        printf("ch %c = %u\n", line[4], s_values[line[4] - '0']);
    } else {
        s_bad++;
        printf("? (%lu bad)\n", (unsigned long)s_bad);
    }
}

PROCESS_THREAD(shell_process, ev, data)
{
    (void)data;
    PROCESS_BEGIN();
    uart_set_input(0, uart_input);
    while (1) {
        PROCESS_WAIT_EVENT_UNTIL(ev == PROCESS_EVENT_POLL);
        execute(s_line);
    }
    PROCESS_END();
}

int main(void)
{
    platform_init_stage_one();
    platform_init_stage_two();
    process_start(&shell_process, NULL);
    while (1) {
        while (process_run() > 0) {
        }
    }
    return 0;
}
