/* The interrupt timeline: after reset no interrupt can fire until main enables one (directly or
   in a function it calls); accesses before that cannot race. */
#include "cmsis_stub.h"

void NVIC_EnableIRQ(int irq);
void HAL_UART_Receive_IT(void *h, uint8_t *buf, uint16_t n);

uint32_t rx_count;
volatile uint32_t errors;
volatile uint64_t uptime;

void USART1_IRQHandler(void)
{
    rx_count++;
    errors++;
    uptime++;
}

static void init_counters(void)      /* only called before the first enable */
{
    rx_count = 0u;
    errors += 0u;                    /* a read-modify-write, but no handler can run yet */
    uptime = 0u;                     /* 8 bytes, no handler yet */
}

static void reset_errors(void)       /* called after the enable: it races */
{
    errors--;                        /* expect: BG102 */
}

static void poll_once(void)          /* called in a loop that also enables: runs after it too */
{
    uptime = 1u;                     /* expect: BG103 */
}

int main(void)
{
    uint8_t b;
    init_counters();
    uptime++;                        /* still before any enable */
    NVIC_EnableIRQ(37);              /* USART1 can fire from here */
    reset_errors();
    for (;;) {
        poll_once();
        HAL_UART_Receive_IT(0, &b, 1u);
        if (rx_count > 10u) {        /* not volatile, but the loop's calls make it reload: no BG104 */
            process(0, 0);
        }
    }
}
