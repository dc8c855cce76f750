/* FreeRTOS on STM32G4 (LL drivers): the ADC watchdog handler latches fault bits; the TIM2 handler
 * releases the hold bit after 50 ms inside a FROM_ISR critical section; a task reports the bits. */
#include <stdbool.h>
#include "stm32g4_ll.h"
#include "FreeRTOS.h"

#define FAULT_OVERVOLT (1UL << 0)
#define FAULT_UNDERVOLT (1UL << 1)
#define FAULT_HOLD (1UL << 8)

static volatile uint32_t g_fault_flags;
static uint32_t s_hold_ms;

extern bool adc_over_threshold(void);

void ADC1_2_IRQHandler(void)
{
    ADC1->ISR = ADC1->ISR;
    g_fault_flags |= (adc_over_threshold() ? FAULT_OVERVOLT : FAULT_UNDERVOLT) | FAULT_HOLD;
}

void TIM2_IRQHandler(void)
{
    LL_TIM_ClearFlag_UPDATE(TIM2);
    if (++s_hold_ms >= 50U) {
        s_hold_ms = 0U;
        UBaseType_t saved = taskENTER_CRITICAL_FROM_ISR();
        g_fault_flags &= ~FAULT_HOLD;
        taskEXIT_CRITICAL_FROM_ISR(saved);
    }
}

extern void fault_report(uint32_t flags);

static void report_task(void *arg)
{
    (void)arg;
    for (;;) {
        fault_report(g_fault_flags);
        vTaskDelay(pdMS_TO_TICKS(20));
    }
}

int main(void)
{
    SystemClock_Config();
    NVIC_SetPriority(ADC1_2_IRQn, 6U);
    NVIC_SetPriority(TIM2_IRQn, 8U);
    NVIC_EnableIRQ(ADC1_2_IRQn);
    LL_TIM_EnableIT_UPDATE(TIM2);
    LL_TIM_EnableCounter(TIM2);
    NVIC_EnableIRQ(TIM2_IRQn);
    (void)xTaskCreate(report_task, "report", 256U, NULL, tskIDLE_PRIORITY + 1U, NULL);
    vTaskStartScheduler();
    for (;;) {
    }
}
