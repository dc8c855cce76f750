/* Status output of an LPC1768 controller under uC/OS-II: the report task prints the process
 * values once a second; a periodic software timer prints a heartbeat line every 250 ms. Both
 * format into the one line buffer and send it on UART0 by polling. */
#include "ucos_ii.h"

static OS_STK s_report_stk[256];
static char s_line[48];
static uint32_t s_flow_lpm = 12U;
static uint32_t s_press_kpa = 230U;
static volatile uint32_t s_heartbeats;

static uint32_t put_str(uint32_t at, const char *s)
{
    while ((*s != '\0') && (at < sizeof s_line - 1U)) {
        s_line[at++] = *s++;
    }
    s_line[at] = '\0';
    return at;
}

static uint32_t put_u32(uint32_t at, uint32_t v)
{
    char tmp[11];
    uint32_t n = 0U;
    do {
        tmp[n++] = (char)('0' + (v % 10U));
        v /= 10U;
    } while (v != 0U);
    while ((n != 0U) && (at < sizeof s_line - 1U)) {
        s_line[at++] = tmp[--n];
    }
    s_line[at] = '\0';
    return at;
}

static void send_line(void)
{
    for (uint32_t i = 0U; s_line[i] != '\0'; i++) {
        while ((LPC_UART0->LSR & 0x20U) == 0U) {
        }
        LPC_UART0->RBR_THR = (uint32_t)s_line[i];
    }
}

static void App_TmrHeartbeat(void *ptmr, void *parg)
{
    uint32_t n;
    (void)ptmr;
    (void)parg;
    s_heartbeats++;
    n = put_str(0U, "HB ");
    n = put_u32(n, s_heartbeats);
    (void)put_str(n, "\r\n");
    send_line();
}

static void AppTaskReport(void *p_arg)
{
    (void)p_arg;
    for (;;) {
        uint32_t n;
        OSSchedLock();
        n = put_str(0U, "FLOW ");
        n = put_u32(n, s_flow_lpm);
        n = put_str(n, " PRESS ");
        n = put_u32(n, s_press_kpa);
        (void)put_str(n, "\r\n");
        send_line();
        OSSchedUnlock();
        OSTimeDlyHMSM(0U, 0U, 1U, 0U);
    }
}

int main(void)
{
    INT8U err;
    OS_TMR *hb;
    BSP_Init();
    OSInit();
    (void)OSTaskCreate(AppTaskReport, NULL, &s_report_stk[255], 10U);
    hb = OSTmrCreate(0U, 25U, OS_TMR_OPT_PERIODIC, App_TmrHeartbeat, NULL, (INT8U *)"HB", &err);
    (void)OSTmrStart(hb, &err);
    OSStart();
    return 0;
}
