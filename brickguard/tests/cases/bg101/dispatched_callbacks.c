/* A driver whose interrupt handler is the SDK's (``acme_uart_irq_handler``, called from the
   vector): a request handed to the driver's asynchronous call holds the completion callback
   (``req.callback = rx_done``), and that driver's handler calls it from the interrupt. The
   call's words say callback but not set-up; the handler's hand-over to the same driver module
   says where it runs. A callback handed to a module no handler dispatches
   (``acme_fmt_format_each``) is not taken for an interrupt's. */
#include "cmsis_stub.h"

typedef struct acme_uart_req acme_uart_req_t;
typedef void (*acme_uart_done_cb_t)(acme_uart_req_t *req, int result);
struct acme_uart_req {
    uint8_t *rx;
    uint32_t len;
    acme_uart_done_cb_t callback;
};
typedef void (*acme_fmt_item_cb_t)(uint32_t item);
int acme_uart_read_async(acme_uart_req_t *req);
void acme_uart_irq_handler(int instance);
void acme_fmt_format_each(uint32_t n, acme_fmt_item_cb_t callback);
void report(uint32_t n);
typedef enum { UART0_IRQn = 5 } IRQn_Type;
void NVIC_EnableIRQ(IRQn_Type irqn);

static uint8_t s_buf[8];
static acme_uart_req_t s_req;
static volatile uint32_t s_bytes;
static volatile uint32_t s_items;

static void rx_done(acme_uart_req_t *req, int result)   /* UART0 interrupt */
{
    (void)result;
    s_bytes += req->len;
    (void)acme_uart_read_async(&s_req);
}

static void on_item(uint32_t item)      /* called by acme_fmt_format_each, in main */
{
    s_items = s_items + item;
}

void UART0_IRQHandler(void)
{
    acme_uart_irq_handler(0);
}

int main(void)
{
    s_req.rx = s_buf;
    s_req.len = sizeof s_buf;
    s_req.callback = rx_done;
    NVIC_EnableIRQ(UART0_IRQn);
    (void)acme_uart_read_async(&s_req);
    for (;;) {
        uint32_t b = s_bytes;
        s_bytes = 0u;                    /* expect: BG101 */
        acme_fmt_format_each(3u, on_item);
        uint32_t n = s_items;
        s_items = 0u;                    /* no race: on_item runs in main's own flow */
        report(b + n);
    }
}
