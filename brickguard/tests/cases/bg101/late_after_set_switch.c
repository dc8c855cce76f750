/* A driver callback that switches its own sources off through a set call taking on or off as
   its last argument (``uart_int_set(&u, EV_TX, 0)``) when it hands the buffer back: each turn
   the task waits for the hand-back and switches the sources on again with the same call, so the
   length stored after that switch-on reaches a callback that may already run with the old one
   (``n_late``); stored before it, it is safe (``n_ok``, on a second port). */
#include "cmsis_stub.h"

typedef struct { uint32_t base; } uart_t;
typedef void (*uart_cb_t)(uint32_t ev);
void uart_attach(uart_t *u, uart_cb_t handler);
void uart_int_set(uart_t *u, uint32_t ev, uint32_t on);
void uart_send_byte(uart_t *u, uint8_t b);
uint32_t fill(uint8_t *p);

#define EV_TX 2u
static uart_t s_u0, s_u1;
static uint8_t buf0[16], buf1[16];
static volatile uint32_t n_late, pos0, n_ok, pos1;
static volatile uint32_t busy0, busy1;

static void u0_handler(uint32_t ev)
{
    (void)ev;
    if (pos0 < n_late) {
        uart_send_byte(&s_u0, buf0[pos0]);
        pos0++;
    } else {
        uart_int_set(&s_u0, EV_TX, 0u);
        busy0 = 0u;
    }
}

static void u1_handler(uint32_t ev)
{
    (void)ev;
    if (pos1 < n_ok) {
        uart_send_byte(&s_u1, buf1[pos1]);
        pos1++;
    } else {
        uart_int_set(&s_u1, EV_TX, 0u);
        busy1 = 0u;
    }
}

int main(void)
{
    uart_attach(&s_u0, u0_handler);
    uart_attach(&s_u1, u1_handler);
    for (;;) {
        while (busy0) {
        }
        uint32_t a = fill(buf0);
        pos0 = 0u;
        busy0 = 1u;
        uart_int_set(&s_u0, EV_TX, 1u);
        n_late = a;                      /* expect: BG101 `n_late` */
        while (busy1) {
        }
        uint32_t b = fill(buf1);
        pos1 = 0u;
        busy1 = 1u;
        n_ok = b;
        uart_int_set(&s_u1, EV_TX, 1u);
    }
}
