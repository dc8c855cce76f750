/* Sensor device: the handler writes the status field and channel counter 1; the main loop
 * writes the config field and channel counter 0 and only reads the status. */
#include "board.h"

struct sensor_dev {
    volatile uint32_t status;
    uint32_t config;
    uint32_t period;
};

static struct sensor_dev dev;
static volatile uint32_t chan_cnt[2];

void TIM3_IRQHandler(void)
{
    TIM3->SR = 0U;
    dev.status = TIM3->CNT;
    chan_cnt[1]++;
}

int main(void)
{
    board_clock_init();
    NVIC_EnableIRQ(TIM3_IRQn);
    for (;;) {
        dev.config |= 0x4U;
        dev.period = dev.config * 10U;
        chan_cnt[0]++;
        if (dev.status > 500U) {
            led_toggle();
        }
    }
}
