/* Order on the interrupt timeline: state written only after the call that lets its handler run
   (its NVIC line enabled, a transfer started on the callback's driver instance) reaches the
   handler too late: an interrupt already pending runs at once with the old value (a NULL
   pointer), or ends the transfer before the task's store overwrites the handler's hand-over.
   Look-alikes: written before the enable, tested by the handler, published by a flag written
   after it, an initialized object, a busy flag set before the start. */
#include "cmsis_stub.h"

typedef enum { USART1_IRQn = 37 } IRQn_Type;
void NVIC_EnableIRQ(IRQn_Type irq);
typedef struct { uint32_t event; } uart_callback_args_t;
typedef struct { void (*p_callback)(uart_callback_args_t *); } uart_cfg_t;
typedef struct { uint32_t open; } uart_ctrl_t;
int R_SCI_UART_Open(uart_ctrl_t *ctrl, const uart_cfg_t *cfg);
int R_SCI_UART_Write(uart_ctrl_t *ctrl, const uint8_t *src, uint32_t n);
int R_SCI_UART_Read(uart_ctrl_t *ctrl, uint8_t *dst, uint32_t n);

struct port { volatile uint32_t *dr; };
static struct port port1, port2, port3;
static const struct port *g_rx, *g_early, *g_checked;
static uint32_t g_len;
static volatile uint32_t g_ready;
static uint32_t g_scale = 4u;
static uart_ctrl_t ctrl, ctrl2;
static volatile uint32_t tx_busy, rx_busy;

void USART1_IRQHandler(void)
{
    uint32_t b = *g_rx->dr + *g_early->dr;
    if (g_checked != NULL) {
        b += *g_checked->dr;
    }
    if (g_ready != 0u) {
        b += g_len;
    }
    process(NULL, b * g_scale);
}

static void tx_done(uart_callback_args_t *a)
{
    (void)a;
    tx_busy = 0u;
}

static void rx_done(uart_callback_args_t *a)
{
    (void)a;
    rx_busy = 0u;
}

static const uart_cfg_t cfg = {.p_callback = tx_done};
static const uart_cfg_t cfg2 = {.p_callback = rx_done};
static uint8_t frame[8];

int main(void)
{
    g_early = &port1;
    NVIC_EnableIRQ(USART1_IRQn);
    g_rx = &port2;                   /* expect: BG101 `g_rx` */
    g_checked = &port3;
    g_len = 8u;
    g_ready = 1u;
    g_scale = 2u;
    (void)R_SCI_UART_Open(&ctrl, &cfg);
    (void)R_SCI_UART_Open(&ctrl2, &cfg2);
    for (;;) {
        while (tx_busy != 0u) {
        }
        (void)R_SCI_UART_Write(&ctrl, frame, 8u);
        tx_busy = 1u;                /* expect: BG101 `tx_busy` */
        while (rx_busy != 0u) {
        }
        rx_busy = 1u;
        (void)R_SCI_UART_Read(&ctrl2, frame, 8u);
    }
}
