/* Debug console: the USART3 receive interrupt hands every byte to the shell context the app
 * registered; the app sets the context up, attaches the handler and enables the interrupt. */
#include "nuttx.h"

struct shell_ctx {
    uint32_t bytes;
    uint8_t line[80];
};

static struct shell_ctx s_shell;
static struct shell_ctx *volatile g_rx_ctx;

static int usart3_isr(int irq, FAR void *context, FAR void *arg)
{
    (void)irq;
    (void)context;
    (void)arg;
    while ((getreg32(STM32_USART3_SR) & USART_SR_RXNE) != 0U) {
        uint8_t c = (uint8_t)getreg32(STM32_USART3_DR);
        struct shell_ctx *ctx = g_rx_ctx;
        ctx->bytes++;
        shell_feed(ctx, c);
    }
    return OK;
}

int main(int argc, char *argv[])
{
    (void)argc;
    (void)argv;
    s_shell.bytes = 0U;
    g_rx_ctx = &s_shell;
    (void)irq_attach(STM32_IRQ_USART3, usart3_isr, NULL);
    up_enable_irq(STM32_IRQ_USART3);
    for (;;) {
        led_blink(100U);
        usleep(900000U);
    }
    return 0;
}
