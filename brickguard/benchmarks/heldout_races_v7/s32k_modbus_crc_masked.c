/* Modbus-RTU style slave on an S32K144 (LPUART1, 19200 baud, RS-485 transceiver on PTD1).
 * Requests are received byte by byte by the LPUART driver into s_rx; the RX callback, run from
 * the LPUART1 interrupt, checks each completed request's CRC at once, so that a request with a
 * bad CRC is dropped without waking main. main answers good requests and, every second, also
 * sends an unsolicited status frame that carries its own CRC.
 * One CRC helper (crc16_begin/crc16_byte/crc16_end, table-free) is shared by both. */
#include "s32k_sdk.h"

#define SLAVE_ADDR 0x11U
#define RX_MAX 32U
#define TX_MAX 40U
#define REQ_LEN 8U

static uint16_t s_crc;                  /* running CRC of the frame being checked or built */
static uint8_t s_rx[RX_MAX];
static volatile uint32_t s_rx_len;
static volatile bool s_req_ready;
static volatile uint32_t s_crc_errors;
static uint8_t s_tx[TX_MAX];
static uint16_t s_regs[16];
static lpuart_state_t s_uart_state;
static const lpuart_user_config_t s_uart_cfg = { 19200U, 0U, 1U, 8U, 0U };

static void crc16_begin(void)
{
    s_crc = 0xFFFFU;
}

static void crc16_byte(uint8_t b)
{
    s_crc ^= b;
    for (uint32_t i = 0U; i < 8U; i++) {
        if ((s_crc & 1U) != 0U) {
            s_crc = (uint16_t)((s_crc >> 1) ^ 0xA001U);
        } else {
            s_crc = (uint16_t)(s_crc >> 1);
        }
    }
}

static uint16_t crc16_end(void)
{
    return s_crc;
}

static void rx_callback(void *driverState, uart_event_t event, void *userData)
{
    (void)driverState;
    (void)userData;
    if (event != UART_EVENT_RX_FULL) {
        return;
    }
    s_rx_len++;
    if (s_rx_len == REQ_LEN) {
        crc16_begin();
        for (uint32_t i = 0U; i < REQ_LEN - 2U; i++) {
            crc16_byte(s_rx[i]);
        }
        if (crc16_end() == (uint16_t)(s_rx[6] | ((uint16_t)s_rx[7] << 8))) {
            s_req_ready = true;
        } else {
            s_crc_errors++;
            s_rx_len = 0U;
        }
    }
    if (s_rx_len < REQ_LEN) {
        (void)LPUART_DRV_SetRxBuffer(INST_LPUART1, &s_rx[s_rx_len], 1U);
    }
}

static void send_frame(uint32_t n)
{
    uint16_t crc;
    INT_SYS_DisableIRQ(LPUART1_RxTx_IRQn);
    crc16_begin();
    for (uint32_t i = 0U; i < n; i++) {
        crc16_byte(s_tx[i]);
    }
    crc = crc16_end();
    INT_SYS_EnableIRQ(LPUART1_RxTx_IRQn);
    s_tx[n] = (uint8_t)crc;
    s_tx[n + 1U] = (uint8_t)(crc >> 8);
    PINS_DRV_WritePin(PTD, 1U, 1U);
    (void)LPUART_DRV_SendDataBlocking(INST_LPUART1, s_tx, n + 2U, 100U);
    PINS_DRV_WritePin(PTD, 1U, 0U);
}

static void answer_request(void)
{
    uint32_t reg = s_rx[3] & 0x0FU;
    s_tx[0] = SLAVE_ADDR;
    s_tx[1] = s_rx[1];
    s_tx[2] = 2U;
    s_tx[3] = (uint8_t)(s_regs[reg] >> 8);
    s_tx[4] = (uint8_t)s_regs[reg];
    send_frame(5U);
}

static void restart_rx(void)
{
    s_rx_len = 0U;
    (void)LPUART_DRV_ReceiveData(INST_LPUART1, s_rx, 1U);
}

int main(void)
{
    uint32_t last_status = 0U;
    CLOCK_SYS_Init_Default();
    (void)LPUART_DRV_Init(INST_LPUART1, &s_uart_state, &s_uart_cfg);
    (void)LPUART_DRV_InstallRxCallback(INST_LPUART1, rx_callback, NULL);
    INT_SYS_SetPriority(LPUART1_RxTx_IRQn, 2U);
    restart_rx();

    for (;;) {
        uint32_t now = OSIF_GetMilliseconds();
        s_regs[0] = (uint16_t)now;
        if (s_req_ready) {
            s_req_ready = false;
            answer_request();
            restart_rx();
        }
        if ((now - last_status) >= 1000U) {
            last_status = now;
            s_tx[0] = SLAVE_ADDR;
            s_tx[1] = 0x41U;
            s_tx[2] = (uint8_t)s_crc_errors;
            send_frame(3U);
        }
    }
}
