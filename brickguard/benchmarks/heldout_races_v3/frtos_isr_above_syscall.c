/* FreeRTOS on STM32G4 (LL drivers): tachometer pulses on EXTI line 13, counted by a handler that
 * calls no FreeRTOS API; the speed task takes the count every 100 ms in a critical section. */
#include "stm32g4_ll.h"
#include "FreeRTOS.h"

static volatile uint32_t g_tach_pulses;

void EXTI15_10_IRQHandler(void)
{
    if (LL_EXTI_IsActiveFlag_0_31(LL_EXTI_LINE_13) != 0U) {
        LL_EXTI_ClearFlag_0_31(LL_EXTI_LINE_13);
        g_tach_pulses++;
    }
}

extern void fan_speed_update(uint32_t rpm);

static void speed_task(void *arg)
{
    (void)arg;
    for (;;) {
        vTaskDelay(pdMS_TO_TICKS(100));
        taskENTER_CRITICAL();
        uint32_t pulses = g_tach_pulses;
        g_tach_pulses = 0U;
        taskEXIT_CRITICAL();
        fan_speed_update(pulses * 300U);
    }
}

int main(void)
{
    SystemClock_Config();
    NVIC_SetPriority(EXTI15_10_IRQn, 2U);
    NVIC_EnableIRQ(EXTI15_10_IRQn);
    (void)xTaskCreate(speed_task, "speed", 256U, NULL, tskIDLE_PRIORITY + 2U, NULL);
    vTaskStartScheduler();
    for (;;) {
    }
}
