/* A driver reached through an access struct of function pointers (CMSIS-Driver's
   ``Driver_USART3.Initialize(cb)``): a function handed to a call through such a field is read
   by the field's words, as a call to a function of that name is; the event callback runs in
   the driver's interrupt. The callback updates its state through a local pointer to the
   driver's global (``m = &g_link``), which taking a field's address (``&m->rx_byte``) leaves
   pointing there. A function handed to a field whose words say nothing of a callback
   (``Driver_LOG.Write(fmt_fn)``) is not taken for a handler. */
#include "cmsis_stub.h"

typedef void (*acme_usart_event_t)(uint32_t event);
typedef void (*acme_fmt_t)(char *out);
typedef struct {
    int32_t (*Initialize)(acme_usart_event_t cb_event);
    int32_t (*Receive)(void *data, uint32_t num);
} const ACME_DRIVER_USART;
typedef struct {
    int32_t (*Write)(acme_fmt_t fmt);
} const ACME_DRIVER_LOG;
extern ACME_DRIVER_USART Driver_USART3;
extern ACME_DRIVER_LOG Driver_LOG;
void report(uint32_t n);

struct link {
    volatile uint32_t state;
    uint8_t rx_byte;
    uint32_t idle_turns;
};

static volatile uint32_t g_events;
static struct link g_link;
static volatile uint32_t g_formatted;

static void usart_cb(uint32_t event)     /* the USART3 interrupt, from Initialize on */
{
    struct link *m = &g_link;
    g_events |= event;
    if (m->state == 1u) {
        m->state = 2u;
    }
    (void)Driver_USART3.Receive(&m->rx_byte, 1u);
}

static void fmt_fn(char *out)            /* called by Write, in main's own flow */
{
    out[0] = 'x';
    g_formatted = g_formatted + 1u;
}

int main(void)
{
    struct link *m = &g_link;
    (void)Driver_USART3.Initialize(usart_cb);
    (void)Driver_LOG.Write(fmt_fn);
    (void)Driver_USART3.Receive(&m->rx_byte, 1u);
    for (;;) {
        uint32_t ev = g_events;
        g_events = 0u;                   /* expect: BG101 */
        if (m->state == 1u && ++m->idle_turns > 100u) {
            m->state = 0u;               /* expect: BG101 */
        }
        uint32_t f = g_formatted;
        g_formatted = 0u;                /* no race: fmt_fn runs in main's own flow */
        report(ev + f);
    }
}
