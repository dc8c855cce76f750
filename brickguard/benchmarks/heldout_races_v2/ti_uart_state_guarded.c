/* MSP432 driverlib: a frame receiver state machine shared by the eUSCI_A0 handler and the main
 * loop. The handler moves IDLE -> RECEIVING -> FRAME_READY, and to OVERRUN whenever a byte
 * arrives while a frame is waiting (the next frame start was lost); the main loop handles a
 * ready frame and moves the machine back to IDLE only if it is still FRAME_READY, testing and
 * writing the state with interrupts disabled, and resynchronises the link on OVERRUN. */
#include "ti_mini.h"

typedef enum { RX_IDLE, RX_RECEIVING, RX_FRAME_READY, RX_OVERRUN } rx_state_t;

#define FRAME_LEN 8U

static volatile rx_state_t g_rxState = RX_IDLE;
static uint8_t g_frame[FRAME_LEN];
static uint32_t g_frameLen; /* handler only */

void EUSCIA0_IRQHandler(void)
{
    uint_fast8_t status = UART_getEnabledInterruptStatus(EUSCI_A0_BASE);
    UART_clearInterruptFlag(EUSCI_A0_BASE, status);
    uint8_t byte = UART_receiveData(EUSCI_A0_BASE);

    switch (g_rxState) {
    case RX_IDLE:
        g_frameLen = 0U;
        g_frame[g_frameLen++] = byte;
        g_rxState = RX_RECEIVING;
        break;
    case RX_RECEIVING:
        g_frame[g_frameLen++] = byte;
        if (g_frameLen == FRAME_LEN) {
            g_rxState = RX_FRAME_READY;
        }
        break;
    default:
        g_rxState = RX_OVERRUN;
        break;
    }
}

int main(void)
{
    board_setup();
    Interrupt_enableInterrupt(INT_EUSCIA0);
    Interrupt_enableMaster();

    for (;;) {
        if (g_rxState == RX_FRAME_READY) {
            handle_frame(g_frame, FRAME_LEN);
            bool wasDisabled = Interrupt_disableMaster();
            if (g_rxState == RX_FRAME_READY) {
                g_rxState = RX_IDLE;
            }
            if (!wasDisabled) {
                Interrupt_enableMaster();
            }
        } else if (g_rxState == RX_OVERRUN) {
            UART_transmitData(EUSCI_A0_BASE, 0x15U); /* NAK: the sender repeats from a frame start */
            g_rxState = RX_IDLE;
        }
    }
}
