/* Sensor bus bridge on an S32K144: LPUART1 receives fixed 16-byte frames, alternately into two
 * buffers. The driver's RX callback (LPUART1 interrupt) publishes the full buffer in s_pending and
 * continues into the other one; on a line error it withdraws the frame it had published (the
 * frame after an error is not trusted). main forwards published frames to the CAN side. A frame
 * takes 1.4 ms at 115200 baud; forwarding one takes under 100 us. */
#include "s32k_sdk.h"

#define FRAME 16U

typedef struct {
    uint8_t bytes[FRAME];
} frame_t;

static frame_t s_frames[2];
static frame_t *volatile s_pending;     /* a complete frame main has not taken, or NULL */
static volatile uint32_t s_fill;        /* buffer the driver is filling */
static volatile uint32_t s_errors;
static lpuart_state_t s_uart_state;
static const lpuart_user_config_t s_uart_cfg = { 115200U, 0U, 1U, 8U, 0U };

static void rx_callback(void *driverState, uart_event_t event, void *userData)
{
    (void)driverState;
    (void)userData;
    if (event == UART_EVENT_RX_FULL) {
        s_pending = &s_frames[s_fill];
        s_fill ^= 1U;
        (void)LPUART_DRV_SetRxBuffer(INST_LPUART1, s_frames[s_fill].bytes, FRAME);
    } else if (event == UART_EVENT_ERROR) {
        s_errors++;
        s_pending = NULL;
    } else {
        /* END_TRANSFER: reception is restarted by main */
    }
}

static void can_forward(const frame_t *f)
{
    uint32_t sum = 0U;
    for (uint32_t i = 0U; i < FRAME; i++) {
        sum += f->bytes[i];
    }
    PINS_DRV_WritePin(PTD, 0U, sum & 1U);
}

int main(void)
{
    CLOCK_SYS_Init_Default();
    (void)LPUART_DRV_Init(INST_LPUART1, &s_uart_state, &s_uart_cfg);
    (void)LPUART_DRV_InstallRxCallback(INST_LPUART1, rx_callback, NULL);
    INT_SYS_SetPriority(LPUART1_RxTx_IRQn, 3U);
    (void)LPUART_DRV_ReceiveData(INST_LPUART1, s_frames[0].bytes, FRAME);

    for (;;) {
        if (s_pending != NULL) {
            can_forward(s_pending);
            s_pending = NULL;
        }
        if (s_errors > 100U) {
            PINS_DRV_WritePin(PTD, 15U, 1U);
        }
    }
}
