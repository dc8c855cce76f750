/* A completion flag set by a handler that disarms its own source first: each arming brings one
   store at most, and the value the wait saw is that store, so none is pending between the wait
   and the clear (``tx_done``). A handler that leaves its source armed (``rx_done``), against a
   clear right after the wait: a store between stores the value the wait saw, as one just
   before the wait would (two completions merged: a flag counts none), so no run differs from
   the handler running first. Racy when the task does work between its wait and its clear
   while the source stays armed (``ev_done``: a completion during ``format()`` is a new one,
   which the clear loses), or arms again between them (``adc_done``). */
#include "cmsis_stub.h"

volatile uint32_t tx_done, rx_done, adc_done, ev_done;

void dma_channel_disable(unsigned ch);
void dma_channel_enable(unsigned ch);
void adc_disable(void);
void adc_enable(void);
void format(void);

void DMA1_Channel1_IRQHandler(void)
{
    dma_channel_disable(1u);
    tx_done = 1u;
}

void DMA1_Channel2_IRQHandler(void)
{
    rx_done = 1u;
}

void DMA1_Channel3_IRQHandler(void)
{
    ev_done = 1u;
}

void ADC_IRQHandler(void)
{
    adc_disable();
    adc_done = 1u;
}

int main(void)
{
    __enable_irq();
    dma_channel_enable(1u);
    adc_enable();
    for (;;) {
        while (tx_done == 0u) {
        }
        format();
        tx_done = 0u;
        dma_channel_enable(1u);
        while (rx_done == 0u) {
        }
        rx_done = 0u;                    /* right after the wait: the serial order "handler first" */
        while (ev_done == 0u) {
        }
        format();
        ev_done = 0u;                    /* expect: BG101 */
        while (adc_done == 0u) {
        }
        adc_enable();
        adc_done = 0u;                   /* expect: BG101 */
    }
}
