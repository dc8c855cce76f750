/* Link statistics on a TM4C129 with TI-RTOS: the UART0 Hwi drains the receive FIFO into a line
 * buffer and counts the bytes; a monitor task reports and clears the count every second with the
 * Hwi gate (Hwi_disable). */
#include "ti_sysbios.h"

static volatile uint32_t g_rx_bytes;
static volatile uint32_t g_rx_lines;
static char s_line[80];
static uint32_t s_line_len;

static void uart_hwi(UArg arg)
{
    (void)arg;
    uint32_t status = UARTIntStatus(UART0_BASE, true);
    UARTIntClear(UART0_BASE, status);
    while (UARTCharsAvail(UART0_BASE)) {
        char c = (char)UARTCharGetNonBlocking(UART0_BASE);
        g_rx_bytes++;
        if (c == '\n' || s_line_len == sizeof(s_line) - 1U) {
            s_line_len = 0U;
            g_rx_lines++;
        } else {
            s_line[s_line_len++] = c;
        }
    }
}

static void monitor_task(UArg a0, UArg a1)
{
    (void)a0;
    (void)a1;
    for (;;) {
        Task_sleep(1000);
        UInt key = Hwi_disable();
        uint32_t bytes = g_rx_bytes;
        g_rx_bytes = 0U;
        Hwi_restore(key);
        System_printf("rx %lu B/s, %lu lines\n", (unsigned long)bytes, (unsigned long)g_rx_lines);
    }
}

int main(void)
{
    Hwi_Params hp;
    Task_Params tp;
    Hwi_Params_init(&hp);
    hp.priority = 0x40;
    (void)Hwi_create(INT_UART0, uart_hwi, &hp, NULL);
    UARTIntEnable(UART0_BASE, UART_INT_RX | UART_INT_RT);
    Task_Params_init(&tp);
    tp.priority = 1;
    (void)Task_create(monitor_task, &tp, NULL);
    BIOS_start();
    return 0;
}
