/* Service console on UART0 of a TM4C123: the receive handler (registered with UARTIntRegister)
 * queues bytes in a 64-byte ring that main drains into its command parser. */
#include "tivaware.h"

#define RING 64U

static volatile uint8_t s_ring[RING];
static volatile uint32_t s_head;        /* written by the handler */
static volatile uint32_t s_tail;        /* written by main */
static volatile uint32_t s_overruns;
static char s_cmd[32];
static uint32_t s_cmd_len;

static void ConsoleIntHandler(void)
{
    uint32_t st = UARTIntStatus(UART0_BASE, true);
    UARTIntClear(UART0_BASE, st);
    while (UARTCharsAvail(UART0_BASE)) {
        int32_t c = UARTCharGetNonBlocking(UART0_BASE);
        uint32_t next = (s_head + 1U) % RING;
        if (next != s_tail) {
            s_ring[s_head] = (uint8_t)c;
            s_head = next;
        } else {
            s_overruns++;
        }
    }
}

static void run_command(const char *cmd, uint32_t len)
{
    UARTprintf("> %s (%u), overruns %u\n", cmd, len, s_overruns);
}

int main(void)
{
    SysCtlPeripheralEnable(SYSCTL_PERIPH_UART0);
    UARTConfigSetExpClk(UART0_BASE, SysCtlClockGet(), 115200U, UART_CONFIG_WLEN_8);
    UARTIntRegister(UART0_BASE, ConsoleIntHandler);
    IntPrioritySet(INT_UART0, 0x40U);
    UARTIntEnable(UART0_BASE, UART_INT_RX | UART_INT_RT);
    IntMasterEnable();

    for (;;) {
        while (s_tail != s_head) {
            char c = (char)s_ring[s_tail];
            s_tail = (s_tail + 1U) % RING;
            if ((c == '\r') || (s_cmd_len == sizeof s_cmd - 1U)) {
                s_cmd[s_cmd_len] = '\0';
                run_command(s_cmd, s_cmd_len);
                s_cmd_len = 0U;
            } else {
                s_cmd[s_cmd_len++] = c;
            }
        }
    }
}
