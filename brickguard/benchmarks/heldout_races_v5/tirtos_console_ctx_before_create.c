/* Service console on a TM4C129 with TI-RTOS. The UART0 Hwi collects a command line into the
 * console context and posts a semaphore; the console task executes "rate N", "stat" and "zero";
 * a 1 s Clock function blinks the heartbeat and counts uptime; a sampling Hwi on TIMER1A counts
 * samples. Unknown commands and overlong lines are answered with an error. The peer is a gateway
 * that sends its "stat" poll as soon as it sees the console's boot banner, and then one
 * command at a time, each after the previous reply. */
#include "ti_sysbios.h"
#include <string.h>

#define LINE_MAX 48U

struct console {
    char line[LINE_MAX];
    volatile uint32_t len;
    volatile bool overflow;
    volatile bool complete; /* a line waits for the task: the Hwi drops bytes until it is done */
    Semaphore_Handle ready;
};

static struct console s_console;
static struct console *volatile g_console;
static volatile uint32_t g_uptime_s;
static volatile uint32_t g_samples;
static uint32_t s_rate_hz = 100U;
static uint32_t s_errors;

static void uart_hwi(UArg arg)
{
    (void)arg;
    struct console *con = g_console;
    UARTIntClear(UART0_BASE, UARTIntStatus(UART0_BASE, true));
    while (UARTCharsAvail(UART0_BASE)) {
        char c = (char)UARTCharGetNonBlocking(UART0_BASE);
        if (con->complete) {
            continue;
        }
        if (c == '\r' || c == '\n') {
            con->line[con->len] = '\0';
            con->complete = true;
            Semaphore_post(con->ready);
        } else if (con->len < LINE_MAX - 1U) {
            con->line[con->len++] = c;
        } else {
            con->overflow = true;
        }
    }
}

static void sample_hwi(UArg arg)
{
    (void)arg;
    TimerIntClear(TIMER1_BASE, TIMER_TIMA_TIMEOUT);
    g_samples++;
}

static void heartbeat_clock(UArg arg)
{
    (void)arg;
    g_uptime_s++;
}

static void reply(const char *s)
{
    while (*s != '\0') {
        UARTCharPut(UART0_BASE, (unsigned char)*s++);
    }
}

static void execute(struct console *con)
{
    if (con->overflow) {
        s_errors++;
        reply("ERR too long\r\n");
    } else if (strncmp(con->line, "rate ", 5) == 0) {
        uint32_t hz = 0U;
        for (const char *p = &con->line[5]; *p >= '0' && *p <= '9'; p++) {
            hz = hz * 10U + (uint32_t)(*p - '0');
        }
        if (hz == 0U || hz > 1000U) {
            s_errors++;
            reply("ERR range\r\n");
        } else {
            s_rate_hz = hz;
            reply("OK\r\n");
        }
    } else if (strcmp(con->line, "stat") == 0) {
        System_printf("up %lu s samples %lu rate %lu errors %lu\n", (unsigned long)g_uptime_s,
                      (unsigned long)g_samples, (unsigned long)s_rate_hz, (unsigned long)s_errors);
        reply("OK\r\n");
    } else if (strcmp(con->line, "zero") == 0) {
        s_errors = 0U;
        reply("OK\r\n");
    } else {
        s_errors++;
        reply("ERR unknown\r\n");
    }
}

static void console_task(UArg a0, UArg a1)
{
    (void)a0;
    (void)a1;
    Hwi_Params hp;
    s_console.ready = Semaphore_create(0, NULL, NULL);
    g_console = &s_console;
    Hwi_Params_init(&hp);
    hp.priority = 0x60;
    (void)Hwi_create(INT_UART0, uart_hwi, &hp, NULL);
    UARTIntEnable(UART0_BASE, UART_INT_RX | UART_INT_RT);
    reply("console ready\r\n");
    for (;;) {
        (void)Semaphore_pend(s_console.ready, BIOS_WAIT_FOREVER);
        execute(&s_console);
        UInt key = Hwi_disable();
        s_console.len = 0U;
        s_console.overflow = false;
        s_console.complete = false;
        Hwi_restore(key);
    }
}

int main(void)
{
    Hwi_Params hp;
    Clock_Params cp;
    Task_Params tp;
    Hwi_Params_init(&hp);
    hp.priority = 0x40;
    (void)Hwi_create(INT_TIMER1A, sample_hwi, &hp, NULL);
    Clock_Params_init(&cp);
    cp.period = 1000;
    cp.startFlag = TRUE;
    (void)Clock_create(heartbeat_clock, 1000, &cp, NULL);
    Task_Params_init(&tp);
    tp.priority = 2;
    (void)Task_create(console_task, &tp, NULL);
    BIOS_start();
    return 0;
}
