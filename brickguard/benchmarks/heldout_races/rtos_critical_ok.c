/* Byte statistics shared by the UART handler and a task: the task updates both counters
 * inside taskENTER_CRITICAL. */
#include "board.h"
#include "rtos.h"

static SemaphoreHandle_t rx_sem;
static volatile uint32_t rx_bytes;
static volatile uint32_t rx_errors;

void USART1_IRQHandler(void)
{
    BaseType_t woken = pdFALSE;
    uint32_t sr = USART1->SR;
    (void)USART1->DR;
    rx_bytes++;
    if (sr & 0x8U) {
        rx_errors++;
    }
    xSemaphoreGiveFromISR(rx_sem, &woken);
    portYIELD_FROM_ISR(woken);
}

static void stats_task(void *arg)
{
    (void)arg;
    for (;;) {
        xSemaphoreTake(rx_sem, portMAX_DELAY);
        taskENTER_CRITICAL();
        uint32_t n = rx_bytes;
        rx_bytes = 0U;
        uint32_t e = rx_errors;
        if (e > 10U) {
            rx_errors = e - 10U;
        }
        taskEXIT_CRITICAL();
        if (e > 10U) {
            led_toggle();
        }
        process_byte((uint8_t)n);
    }
}

int main(void)
{
    board_clock_init();
    rx_sem = xSemaphoreCreateBinary();
    NVIC_SetPriority(USART1_IRQn, 6U);
    NVIC_EnableIRQ(USART1_IRQn);
    xTaskCreate(stats_task, "stats", 256U, 0, tskIDLE_PRIORITY + 1U, 0);
    vTaskStartScheduler();
    for (;;) {
    }
}
