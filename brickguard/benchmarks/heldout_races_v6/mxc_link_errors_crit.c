/* Radio-modem link monitor: 16-byte frames arrive by MXC_UART_TransactionAsync; the completion
 * callback (UART0 IRQ) checks each frame's sum and keeps link statistics in one struct; main
 * raises a link alarm after more than 3 bad frames and then starts counting again. */
#include "mxc_msdk.h"

#define FRAME 16U

struct link_stats {
    uint32_t frames;        /* callback only */
    uint32_t last_len;      /* callback only */
    uint32_t crc_errors;    /* callback counts, main resets */
};

static uint8_t s_frame[FRAME];
static mxc_uart_req_t s_req;
static volatile struct link_stats s_link;

static void frame_done(mxc_uart_req_t *req, int result)
{
    uint8_t sum = 0U;
    (void)result;
    for (uint32_t i = 0U; i + 1U < FRAME; i++) {
        sum = (uint8_t)(sum + s_frame[i]);
    }
    s_link.frames++;
    s_link.last_len = req->rxCnt;
    if (sum != s_frame[FRAME - 1U]) {
        s_link.crc_errors++;
    }
    MXC_UART_TransactionAsync(&s_req);
}

void UART0_IRQHandler(void)
{
    MXC_UART_AsyncHandler(MXC_UART0);
}

int main(void)
{
    MXC_UART_Init(MXC_UART0, 57600U, 0);
    s_req.uart = MXC_UART0;
    s_req.rxData = s_frame;
    s_req.rxLen = FRAME;
    s_req.callback = frame_done;
    NVIC_SetPriority(UART0_IRQn, 3U);
    NVIC_EnableIRQ(UART0_IRQn);
    MXC_UART_TransactionAsync(&s_req);
    for (;;) {
        MXC_Delay(1000000U);
        uint32_t errs;
        MXC_SYS_Crit_Enter();
        errs = s_link.crc_errors;
        if (errs > 3U) {
            s_link.crc_errors = 0U;
        }
        MXC_SYS_Crit_Exit();
        if (errs > 3U) {
            console_print("link alarm after %lu frames\n", (unsigned long)s_link.frames);
        }
        console_print("len %lu\n", (unsigned long)s_link.last_len);
    }
}
