/* Greenhouse vent on an STM32F407 with RT-Thread: two soft timers, a 1 s one that opens the vent
 * by one step when it is warm and a 5 s one that closes it by two steps when it is cold, both
 * read-modify-write the vent position without a lock. Soft timer callbacks all run in the single
 * "timer" thread, one after another, and no thread or interrupt writes the position; main only
 * reports it. */
#include "rtthread.h"

#define VENT_MAX 40

static volatile rt_int32_t g_vent_pos;
static volatile rt_int32_t g_temp_c;

static void open_step(void *parameter)
{
    (void)parameter;
    if (g_temp_c > 28 && g_vent_pos < VENT_MAX) {
        g_vent_pos = g_vent_pos + 1;
    }
}

static void close_step(void *parameter)
{
    (void)parameter;
    if (g_temp_c < 18 && g_vent_pos > 0) {
        g_vent_pos = g_vent_pos - (g_vent_pos > 1 ? 2 : 1);
    }
}

void ADC_IRQHandler(void)
{
    rt_interrupt_enter();
    g_temp_c = (rt_int32_t)(ADC1_DR & 0xFFFU) / 50;
    rt_interrupt_leave();
}

int main(void)
{
    rt_timer_start(rt_timer_create("open", open_step, RT_NULL, RT_TICK_PER_SECOND,
                                   RT_TIMER_FLAG_PERIODIC | RT_TIMER_FLAG_SOFT_TIMER));
    rt_timer_start(rt_timer_create("close", close_step, RT_NULL, 5 * RT_TICK_PER_SECOND,
                                   RT_TIMER_FLAG_PERIODIC | RT_TIMER_FLAG_SOFT_TIMER));
    NVIC_EnableIRQ(ADC_IRQn);
    for (;;) {
        rt_thread_mdelay(10000);
        rt_kprintf("vent %ld temp %ld\n", (long)g_vent_pos, (long)g_temp_c);
    }
    return 0;
}
