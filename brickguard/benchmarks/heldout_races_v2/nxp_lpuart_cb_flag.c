/* Non-blocking LPUART receive with the SDK's transactional driver: the driver's LPUART1 IRQ
 * handler calls rx_callback when the 16 bytes have arrived. */
#include "fsl_mini.h"

static lpuart_handle_t g_lpuartHandle;
static uint8_t g_rxFrame[16];
static bool g_rxDone;

static void rx_callback(LPUART_Type *base, lpuart_handle_t *handle, status_t status, void *userData)
{
    (void)base;
    (void)handle;
    (void)userData;
    if (status == kStatus_LPUART_RxIdle) {
        g_rxDone = true;
    }
}

int main(void)
{
    lpuart_transfer_t xfer = {g_rxFrame, sizeof(g_rxFrame)};

    BOARD_InitHardware();
    LPUART_TransferCreateHandle(LPUART1, &g_lpuartHandle, rx_callback, NULL);
    EnableIRQ(LPUART1_IRQn);

    for (;;) {
        g_rxDone = false;
        (void)LPUART_TransferReceiveNonBlocking(LPUART1, &g_lpuartHandle, &xfer, NULL);
        while (!g_rxDone) {
        }
        app_handle_line(g_rxFrame, sizeof(g_rxFrame));
    }
}
