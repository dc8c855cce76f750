#include "shared.h"

volatile uint16_t samples[8];
volatile uint8_t sample_count;

static void store_sample(uint16_t v)
{
    samples[sample_count & 7u] = v;
    sample_count++;
}

void ADC_IRQHandler(void)
{
    store_sample(42);
}
