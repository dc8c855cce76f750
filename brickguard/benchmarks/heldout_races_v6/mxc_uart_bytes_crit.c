/* Telemetry link statistics: UART0 receives 32-byte frames with MXC_UART_TransactionAsync; the
 * completion callback (run by MXC_UART_AsyncHandler in UART0_IRQHandler) counts them and
 * restarts the request; main reports the byte rate once a second. */
#include "mxc_msdk.h"

#define FRAME 32U

static uint8_t s_rxbuf[FRAME];
static mxc_uart_req_t s_req;
static volatile uint32_t s_bytes;       /* bytes since the last report */
static volatile uint32_t s_frames;      /* frames since boot */
static volatile uint8_t s_last_sum;     /* checksum of the last frame */

static void rx_done(mxc_uart_req_t *req, int result)
{
    uint8_t sum = 0U;
    if (result != E_NO_ERROR) {
        return;
    }
    for (uint32_t i = 0U; i < req->rxCnt; i++) {
        sum = (uint8_t)(sum + s_rxbuf[i]);
    }
    s_last_sum = sum;
    s_bytes += req->rxCnt;
    s_frames++;
    MXC_UART_TransactionAsync(&s_req);
}

void UART0_IRQHandler(void)
{
    MXC_UART_AsyncHandler(MXC_UART0);
}

int main(void)
{
    MXC_UART_Init(MXC_UART0, 115200U, 0);
    s_req.uart = MXC_UART0;
    s_req.rxData = s_rxbuf;
    s_req.rxLen = FRAME;
    s_req.txLen = 0U;
    s_req.callback = rx_done;
    NVIC_SetPriority(UART0_IRQn, 2U);
    NVIC_EnableIRQ(UART0_IRQn);
    MXC_UART_TransactionAsync(&s_req);
    for (;;) {
        uint32_t b;
        MXC_Delay(1000000U);
        MXC_SYS_Crit_Enter();
        b = s_bytes;
        s_bytes = 0U;
        MXC_SYS_Crit_Exit();
        console_print("%lu B/s, %lu frames, sum %02x\n", (unsigned long)b,
                      (unsigned long)s_frames, s_last_sum);
    }
}
