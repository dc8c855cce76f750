/* FreeRTOS on STM32G4 (LL drivers): the USART2 handler counts received bytes; a statistics task
 * takes the count every second in a critical section. */
#include "stm32g4_ll.h"
#include "FreeRTOS.h"

static volatile uint32_t g_rx_bytes;
static uint32_t s_rx_total;

void USART2_IRQHandler(void)
{
    if (LL_USART_IsActiveFlag_RXNE(USART2) != 0U) {
        (void)LL_USART_ReceiveData8(USART2);
        g_rx_bytes++;
    }
}

extern void stats_publish(uint32_t per_second, uint32_t total);

static void stats_task(void *arg)
{
    (void)arg;
    for (;;) {
        vTaskDelay(pdMS_TO_TICKS(1000));
        taskENTER_CRITICAL();
        uint32_t n = g_rx_bytes;
        g_rx_bytes = 0U;
        taskEXIT_CRITICAL();
        s_rx_total += n;
        stats_publish(n, s_rx_total);
    }
}

int main(void)
{
    SystemClock_Config();
    NVIC_SetPriority(USART2_IRQn, 6U);
    LL_USART_EnableIT_RXNE(USART2);
    NVIC_EnableIRQ(USART2_IRQn);
    (void)xTaskCreate(stats_task, "stats", 256U, NULL, tskIDLE_PRIORITY + 1U, NULL);
    vTaskStartScheduler();
    for (;;) {
    }
}
