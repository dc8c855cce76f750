/* Interrupt handlers found by registration, vector table and attribute; a task found by
   xTaskCreate. None of the handler names match *_IRQHandler. */
#include "cmsis_stub.h"

volatile uint8_t pkt[8];
volatile uint8_t stat[8];
volatile uint8_t gpio_evt[8];
volatile uint8_t dma_evt[8];

static void on_packet(void) { pkt[0] = 1; }
static void on_gpio(void) { gpio_evt[0] = 1; }
static void on_dma(void) { dma_evt[0] = 1; }
void __attribute__((interrupt("IRQ"))) timer_handler(void) { stat[0] = 1; }

void Reset_Handler(void);
void (*const vector_table[])(void) __attribute__((section(".isr_vector"))) = {
    Reset_Handler,
    on_dma,
};

static void worker(void *arg)
{
    (void)arg;
    for (;;) {
        pkt[0]++;                    /* expect: BG102 */
        stat[0] |= 2u;               /* expect: BG102 */
    }
}

int main(void)
{
    request_irq(5, on_packet, 0, "net", 0);
    NVIC_SetVector(6, (uint32_t)on_gpio);
    xTaskCreate(worker, "worker", 256, 0, 1, 0);
    gpio_evt[0]--;                   /* expect: BG102 */
    dma_evt[0] += 2u;                /* expect: BG102 */
    return 0;
}
