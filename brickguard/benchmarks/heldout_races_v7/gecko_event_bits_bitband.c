/* Event loop of an EFM32GG11 sensor node (Gecko SDK): three interrupt sources (button callback at
 * priority 1, LETIMER0 at priority 4, a periodic sleeptimer callback from the RTCC at 5) post
 * events as bits of one word; main serves and clears them. Every bit is set and cleared with
 * BUS_RamBitWrite, one store through the SRAM bit-band alias, so no read-modify-write of the word
 * ever happens. */
#include "em_gecko.h"

#define EV_BUTTON 0U
#define EV_SAMPLE 1U
#define EV_REPORT 2U

static volatile uint32_t s_events;
static volatile uint32_t s_samples;

static void button_cb(uint8_t intNo)
{
    (void)intNo;
    BUS_RamBitWrite(&s_events, EV_BUTTON, 1U);
}

void LETIMER0_IRQHandler(void)
{
    LETIMER_IntClear(LETIMER0, LETIMER_IF_UF);
    s_samples++;
    BUS_RamBitWrite(&s_events, EV_SAMPLE, 1U);
}

static void report_cb(sl_sleeptimer_timer_handle_t *handle, void *data)
{
    (void)handle;
    (void)data;
    BUS_RamBitWrite(&s_events, EV_REPORT, 1U);
}

int main(void)
{
    sl_sleeptimer_timer_handle_t report_timer;
    CHIP_Init();
    GPIOINT_Init();
    NVIC_SetPriority(GPIO_EVEN_IRQn, 1U);
    NVIC_SetPriority(LETIMER0_IRQn, 4U);
    NVIC_SetPriority(RTCC_IRQn, 5U);
    GPIOINT_CallbackRegister(2U, button_cb);
    GPIO_ExtIntConfig(gpioPortF, 2U, 2U, false, true, true);
    NVIC_EnableIRQ(LETIMER0_IRQn);
    (void)sl_sleeptimer_init();
    (void)sl_sleeptimer_start_periodic_timer(&report_timer, 32768U, report_cb, NULL, 0U, 0U);

    for (;;) {
        if (s_events == 0U) {
            __disable_irq();
            if (s_events == 0U) {
                __WFI();
            }
            __enable_irq();
            continue;
        }
        if (BUS_RamBitRead(&s_events, EV_BUTTON) != 0U) {
            BUS_RamBitWrite(&s_events, EV_BUTTON, 0U);
            app_log("button\n");
        }
        if (BUS_RamBitRead(&s_events, EV_SAMPLE) != 0U) {
            BUS_RamBitWrite(&s_events, EV_SAMPLE, 0U);
            app_log("sample %lu\n", (unsigned long)LETIMER_CounterGet(LETIMER0));
        }
        if (BUS_RamBitRead(&s_events, EV_REPORT) != 0U) {
            BUS_RamBitWrite(&s_events, EV_REPORT, 0U);
            app_log("report: %lu samples\n", (unsigned long)s_samples);
        }
    }
}
