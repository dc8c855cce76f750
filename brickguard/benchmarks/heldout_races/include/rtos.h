/* Minimal FreeRTOS-style API declarations for the held-out race corpus (names as in FreeRTOS,
 * declared as plain functions so the files parse without the kernel). Written for this corpus. */
#ifndef HELDOUT_RTOS_H
#define HELDOUT_RTOS_H

#include <stdint.h>

typedef long BaseType_t;
typedef unsigned long UBaseType_t;
typedef uint32_t TickType_t;
typedef void *TaskHandle_t;
typedef void *SemaphoreHandle_t;
typedef void (*TaskFunction_t)(void *);

#define pdTRUE ((BaseType_t)1)
#define pdFALSE ((BaseType_t)0)
#define pdPASS pdTRUE
#define configMAX_SYSCALL_INTERRUPT_PRIORITY (5U << 4)
#define portMAX_DELAY ((TickType_t)0xffffffffUL)
#define tskIDLE_PRIORITY ((UBaseType_t)0U)

BaseType_t xTaskCreate(TaskFunction_t code, const char *name, uint16_t stack_words, void *param,
                       UBaseType_t priority, TaskHandle_t *created);
void vTaskStartScheduler(void);
void vTaskDelay(TickType_t ticks);
SemaphoreHandle_t xSemaphoreCreateBinary(void);
SemaphoreHandle_t xSemaphoreCreateMutex(void);
BaseType_t xSemaphoreTake(SemaphoreHandle_t sem, TickType_t wait);
BaseType_t xSemaphoreGive(SemaphoreHandle_t sem);
BaseType_t xSemaphoreGiveFromISR(SemaphoreHandle_t sem, BaseType_t *woken);
void vPortEnterCritical(void);
void vPortExitCritical(void);
void vPortYieldFromISR(BaseType_t woken);

#define taskENTER_CRITICAL() vPortEnterCritical()
#define taskEXIT_CRITICAL() vPortExitCritical()
#define portYIELD_FROM_ISR(x) vPortYieldFromISR(x)

#endif
