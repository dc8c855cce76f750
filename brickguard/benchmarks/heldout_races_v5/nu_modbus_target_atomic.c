/* Modbus RTU stepper axis on a Nuvoton M487 (NuMicro BSP). UART0 collects a request frame; TMR1
 * is restarted by every byte and fires after 3.5 character times of silence to mark the frame
 * complete; main checks the CRC and serves function 0x03 (read holding registers) and 0x10 (write
 * multiple registers); TMR0 steps the motor at 2 kHz towards the 32-bit target held in holding
 * registers 10 (high word) and 11 (low word), latching a new target whenever a move is finished.
 * Frames for other slaves, bad CRCs and unsupported functions are ignored or answered with an
 * exception, as the standard says. A multi-register write is stored with interrupts disabled. */
#include "NuMicro.h"

#define SLAVE_ID 7U
#define FRAME_MAX 64U
#define NREGS 16U
#define REG_TARGET_HI 10U
#define REG_TARGET_LO 11U

static uint8_t s_frame[FRAME_MAX];
static volatile uint32_t g_rx_len;
static volatile bool g_frame_ready;
static volatile uint32_t g_rx_dropped;
static volatile uint16_t s_regs[NREGS];
static volatile uint32_t g_position;
static uint32_t s_target;
static uint8_t s_reply[FRAME_MAX];
static uint32_t s_crc_errors;

void UART0_IRQHandler(void)
{
    while (!UART_GET_RX_EMPTY(UART0)) {
        uint8_t c = (uint8_t)UART_READ(UART0);
        if (g_frame_ready || g_rx_len >= FRAME_MAX) {
            g_rx_dropped++;
            continue;
        }
        s_frame[g_rx_len] = c;
        g_rx_len = g_rx_len + 1U;
        TIMER_RESET_COUNTER(TIMER1);
        TIMER_Start(TIMER1);
    }
}

void TMR1_IRQHandler(void)
{
    TIMER_ClearIntFlag(TIMER1);
    TIMER_Stop(TIMER1);
    g_frame_ready = true;
}

void TMR0_IRQHandler(void)
{
    TIMER_ClearIntFlag(TIMER0);
    uint32_t pos = g_position;
    if (pos == s_target) {
        s_target = ((uint32_t)s_regs[REG_TARGET_HI] << 16) | s_regs[REG_TARGET_LO];
        return;
    }
    g_position = (s_target > pos) ? pos + 1U : pos - 1U;
}

static uint16_t crc16(const uint8_t *p, uint32_t n)
{
    uint16_t crc = 0xFFFFU;
    while (n-- != 0U) {
        crc ^= *p++;
        for (int b = 0; b < 8; b++) {
            crc = (crc & 1U) ? (uint16_t)((crc >> 1) ^ 0xA001U) : (uint16_t)(crc >> 1);
        }
    }
    return crc;
}

static void send(uint32_t n)
{
    uint16_t crc = crc16(s_reply, n);
    s_reply[n] = (uint8_t)crc;
    s_reply[n + 1U] = (uint8_t)(crc >> 8);
    (void)UART_Write(UART0, s_reply, n + 2U);
}

static void serve(const uint8_t *f, uint32_t len)
{
    uint16_t start = (uint16_t)((f[2] << 8) | f[3]);
    uint16_t count = (uint16_t)((f[4] << 8) | f[5]);
    s_reply[0] = SLAVE_ID;
    s_reply[1] = f[1];
    if (start + count > NREGS || count == 0U) {
        s_reply[1] |= 0x80U;
        s_reply[2] = 0x02U; /* illegal data address */
        send(3U);
        return;
    }
    if (f[1] == 0x03U) {
        uint32_t pos = g_position; /* input words 0/1: one load, both halves of one value */
        s_reply[2] = (uint8_t)(2U * count);
        for (uint16_t i = 0U; i < count; i++) {
            uint16_t v = (start + i == 0U) ? (uint16_t)(pos >> 16) :
                         (start + i == 1U) ? (uint16_t)pos : s_regs[start + i];
            s_reply[3U + 2U * i] = (uint8_t)(v >> 8);
            s_reply[4U + 2U * i] = (uint8_t)v;
        }
        send(3U + 2U * count);
    } else if (f[1] == 0x10U && len >= 9U + 2U * count) {
        __disable_irq();
        for (uint16_t i = 0U; i < count; i++) {
            s_regs[start + i] = (uint16_t)((f[7U + 2U * i] << 8) | f[8U + 2U * i]);
        }
        __enable_irq();
        for (uint32_t i = 0U; i < 6U; i++) {
            s_reply[i] = f[i];
        }
        send(6U);
    } else {
        s_reply[1] |= 0x80U;
        s_reply[2] = 0x01U; /* illegal function */
        send(3U);
    }
}

int main(void)
{
    SYS_Init();
    UART_Open(UART0, 19200U);
    (void)TIMER_Open(TIMER0, TIMER_PERIODIC_MODE, 2000U);
    (void)TIMER_Open(TIMER1, TIMER_ONESHOT_MODE, 548U); /* 3.5 characters at 19200 Bd */
    TIMER_EnableInt(TIMER0);
    TIMER_EnableInt(TIMER1);
    NVIC_SetPriority(UART0_IRQn, 2U);
    NVIC_SetPriority(TMR1_IRQn, 2U);
    NVIC_SetPriority(TMR0_IRQn, 1U);
    NVIC_EnableIRQ(UART0_IRQn);
    NVIC_EnableIRQ(TMR1_IRQn);
    NVIC_EnableIRQ(TMR0_IRQn);
    UART_ENABLE_INT(UART0, UART_INTEN_RDAIEN_Msk | UART_INTEN_RXTOIEN_Msk);
    TIMER_Start(TIMER0);
    for (;;) {
        if (!g_frame_ready) {
            continue;
        }
        uint32_t len = g_rx_len;
        if (len >= 8U && s_frame[0] == SLAVE_ID) {
            if (crc16(s_frame, len) != 0U) {
                s_crc_errors++;
            } else {
                serve(s_frame, len);
            }
        }
        g_rx_len = 0U;
        g_frame_ready = false;
    }
}
