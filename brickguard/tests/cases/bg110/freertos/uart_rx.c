/* A UART receive path under FreeRTOS: task APIs from the handler (BG111) next to the right
   FromISR twins, and blocking calls from the handler and from a helper it calls (BG110). */
#include "FreeRTOS.h"

extern volatile uint8_t UART_DR;
QueueHandle_t rx_queue;
SemaphoreHandle_t tx_done;
TaskHandle_t parser_task;

static void wait_a_bit(void)
{
    vTaskDelay(1);                            /* expect: BG110 */
}

void USART1_IRQHandler(void)
{
    BaseType_t woken = pdFALSE;
    uint8_t b = UART_DR;
    xQueueSend(rx_queue, &b, 0);              /* expect: BG111 */
    xQueueSendFromISR(rx_queue, &b, &woken);
    xSemaphoreGive(tx_done);                  /* expect: BG111 */
    xSemaphoreGiveFromISR(tx_done, &woken);
    xTaskNotifyGive(parser_task);             /* expect: BG111 */
    vTaskNotifyGiveFromISR(parser_task, &woken);
    portYIELD_FROM_ISR(woken);
}

void DMA1_Stream0_IRQHandler(void)
{
    (void)pvPortMalloc(8);                    /* expect: BG110 */
    wait_a_bit();
}

void HAL_UART_TxCpltCallback(void *huart)
{
    (void)huart;
    (void)xSemaphoreTake(tx_done, portMAX_DELAY);   /* expect: BG111 */
}

int main(void)
{
    uint8_t b = 0;
    xQueueSend(rx_queue, &b, portMAX_DELAY);   /* task context: fine */
    xSemaphoreGive(tx_done);
    vTaskDelay(10);
    for (;;) {
    }
}
