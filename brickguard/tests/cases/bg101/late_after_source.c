/* A handler that switches its peripheral's sources off when it hands a buffer back (emlib's
   USART_IntDisable(USART0, ...) in USART0_TX_IRQHandler) cannot run again until the task
   switches them on: state the task writes before that is safe, state written after it (the
   length) reaches a handler that may already run with the old one. Look-alike: a task that
   does not wait for the hand-back first (nothing says the handler is off). */
#include "cmsis_stub.h"

typedef struct { volatile uint32_t IEN; volatile uint32_t TXDATA; } USART_TypeDef;
#define USART0 ((USART_TypeDef *)0x40010000u)
#define USART1 ((USART_TypeDef *)0x40010400u)
void USART_IntEnable(USART_TypeDef *u, uint32_t flags);
void USART_IntDisable(USART_TypeDef *u, uint32_t flags);
uint32_t format(uint8_t *out);

static uint8_t msg[32], msg1[32];
static uint32_t len, pos, len_ok, pos_ok, len1, pos1;
static volatile uint32_t owner, owner_ok;

void USART0_TX_IRQHandler(void)
{
    if (pos < len) {
        USART0->TXDATA = msg[pos++];
    } else if (pos_ok < len_ok) {
        USART0->TXDATA = msg[pos_ok++];
    } else {
        USART_IntDisable(USART0, 1u);
        owner = 0u;
        owner_ok = 0u;
    }
}

void USART1_TX_IRQHandler(void)
{
    if (pos1 < len1) {
        USART1->TXDATA = msg1[pos1++];
    }
}

static void send(void)
{
    while (owner != 0u) {
    }
    uint32_t n = format(msg);
    pos = 0u;
    owner = 1u;
    USART_IntEnable(USART0, 1u);
    len = n;                         /* expect: BG101 `len` */
}

static void send_ok(void)
{
    while (owner_ok != 0u) {
    }
    len_ok = format(msg);
    pos_ok = 0u;
    owner_ok = 1u;
    USART_IntEnable(USART0, 1u);
}

static void send1(void)              /* no hand-back waited for: not an order question */
{
    USART_IntEnable(USART1, 1u);
    len1 = format(msg1);
}

int main(void)
{
    __enable_irq();
    for (;;) {
        send();
        send_ok();
        send1();
    }
}
