/* The shape of the real FreeRTOS API: most queue and semaphore calls are macros. */
#ifndef FREERTOS_STUB_H
#define FREERTOS_STUB_H
#include <stdint.h>
typedef long BaseType_t;
typedef uint32_t TickType_t;
typedef void *QueueHandle_t;
typedef void *SemaphoreHandle_t;
typedef void *TaskHandle_t;
#define pdFALSE 0
#define portMAX_DELAY 0xffffffffu
#define queueSEND_TO_BACK 0
BaseType_t xQueueGenericSend(QueueHandle_t q, const void *item, TickType_t wait, BaseType_t pos);
BaseType_t xQueueGenericSendFromISR(QueueHandle_t q, const void *item, BaseType_t *woken,
                                    BaseType_t pos);
BaseType_t xQueueGiveFromISR(QueueHandle_t q, BaseType_t *woken);
BaseType_t xQueueSemaphoreTake(QueueHandle_t q, TickType_t wait);
#define xQueueSend(q, item, wait) xQueueGenericSend((q), (item), (wait), queueSEND_TO_BACK)
#define xQueueSendFromISR(q, item, woken) \
    xQueueGenericSendFromISR((q), (item), (woken), queueSEND_TO_BACK)
#define xSemaphoreGive(s) xQueueGenericSend((QueueHandle_t)(s), 0, 0, queueSEND_TO_BACK)
#define xSemaphoreGiveFromISR(s, woken) xQueueGiveFromISR((QueueHandle_t)(s), (woken))
#define xSemaphoreTake(s, wait) xQueueSemaphoreTake((s), (wait))
void vTaskDelay(TickType_t ticks);
void vTaskNotifyGiveFromISR(TaskHandle_t t, BaseType_t *woken);
uint32_t xTaskGenericNotify(TaskHandle_t t, uint32_t idx, uint32_t value, int action,
                            uint32_t *prev);
#define xTaskNotifyGive(t) xTaskGenericNotify((t), 0, 0, 2, 0)
void vPortYieldFromISR(BaseType_t woken);
#define portYIELD_FROM_ISR(w) vPortYieldFromISR(w)
void *pvPortMalloc(uint32_t n);
#endif
