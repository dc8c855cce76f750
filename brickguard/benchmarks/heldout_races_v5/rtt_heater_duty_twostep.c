/* Hot-plate controller on an STM32F407 with RT-Thread: the solid-state relay is driven by
 * time-proportioning, TIM2 counting 0..999 over a 1 s window and its update interrupt loading the
 * heater duty (per mille) into the compare register for the next window; the control thread runs
 * a PI loop every 100 ms on the thermocouple reading, clamped to 0..80% (the element's rating). */
#include "rtthread.h"

#define DUTY_MAX 800
#define TIM2_CCR1 (*(volatile uint32_t *)0x40000034U)

static volatile rt_int32_t g_duty;
static rt_int32_t s_integral;
static volatile rt_int32_t g_temp_c10;
static rt_int32_t s_target_c10 = 2200;

void TIM2_IRQHandler(void)
{
    rt_interrupt_enter();
    TIM2_SR = 0U;
    TIM2_CCR1 = (uint32_t)g_duty;
    rt_interrupt_leave();
}

void ADC_IRQHandler(void)
{
    rt_interrupt_enter();
    g_temp_c10 = (rt_int32_t)(ADC1_DR & 0xFFFU) * 4;
    rt_interrupt_leave();
}

static void control_entry(void *parameter)
{
    (void)parameter;
    for (;;) {
        rt_thread_mdelay(100);
        rt_int32_t err = s_target_c10 - g_temp_c10;
        s_integral += err / 10;
        if (s_integral > 4000) {
            s_integral = 4000;
        } else if (s_integral < 0) {
            s_integral = 0;
        }
        g_duty = err * 2 + s_integral / 8;
        if (g_duty > DUTY_MAX) {
            g_duty = DUTY_MAX;
        } else if (g_duty < 0) {
            g_duty = 0;
        }
    }
}

int main(void)
{
    NVIC_SetPriority(TIM2_IRQn, 2U);
    NVIC_SetPriority(ADC_IRQn, 4U);
    NVIC_EnableIRQ(TIM2_IRQn);
    NVIC_EnableIRQ(ADC_IRQn);
    rt_thread_startup(rt_thread_create("ctrl", control_entry, RT_NULL, 1024, 11, 10));
    return 0;
}
