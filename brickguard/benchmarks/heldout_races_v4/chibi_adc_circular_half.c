/* Light sensor: the ADC fills a circular buffer through DMA; at each half the driver's end
 * callback signals the level thread, which averages the samples and drives the backlight. */
#include "chibios.h"

#define ADC_DEPTH 64U
#define ADC_HALF (ADC_DEPTH / 2U)

static adcsample_t s_samples[ADC_DEPTH];
static binary_semaphore_t s_ready;
static volatile uint32_t g_half_done;

static void adc_end_cb(ADCDriver *adcp)
{
    g_half_done = adcIsBufferComplete(adcp) ? 1U : 0U;
    chSysLockFromISR();
    chBSemSignalI(&s_ready);
    chSysUnlockFromISR();
}

static const ADCConversionGroup s_grp = {
    .circular = true,
    .num_channels = 1U,
    .end_cb = adc_end_cb,
    .sqr3 = 4U,
};

static THD_WORKING_AREA(waLevel, 512);
static THD_FUNCTION(level_thread, arg)
{
    (void)arg;
    for (;;) {
        (void)chBSemWait(&s_ready);
        uint32_t sum = 0U;
        uint32_t first = g_half_done * ADC_HALF;
        for (uint32_t i = first; i < first + ADC_HALF; i++) {
            sum += s_samples[i];
        }
        pwm_set_duty((sum / ADC_HALF) * 1000U / 4095U);
    }
}

int main(void)
{
    halInit();
    chSysInit();
    chBSemObjectInit(&s_ready, true);
    adcStart(&ADCD1, NULL);
    chThdCreateStatic(waLevel, sizeof(waLevel), NORMALPRIO + 3U, level_thread, NULL);
    adcStartConversion(&ADCD1, &s_grp, s_samples, ADC_DEPTH);
    for (;;) {
        chThdSleepMilliseconds(1000U);
    }
}
