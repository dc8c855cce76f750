/* CMSIS-RTOS2 API (Keil RTX5), trimmed. osKernelLock() stops the scheduler only: interrupts keep
 * running. osMessageQueuePut/osEventFlagsSet/osThreadFlagsSet may be called from an ISR with a
 * timeout of 0. */
#ifndef CMSIS_OS2_H
#define CMSIS_OS2_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    osOK = 0,
    osError = -1,
    osErrorTimeout = -2,
    osErrorResource = -3,
    osErrorParameter = -4,
    osErrorNoMemory = -5,
    osErrorISR = -6
} osStatus_t;

typedef void *osThreadId_t;
typedef void *osMessageQueueId_t;
typedef void *osEventFlagsId_t;
typedef void *osMutexId_t;
typedef void (*osThreadFunc_t)(void *argument);
typedef struct { const char *name; uint32_t attr_bits; void *cb_mem; uint32_t cb_size; void *stack_mem;
                 uint32_t stack_size; int32_t priority; } osThreadAttr_t;

#define osWaitForever 0xFFFFFFFFU
#define osFlagsWaitAny 0x00000000U
#define osFlagsWaitAll 0x00000001U
#define osPriorityNormal 24
#define osPriorityAboveNormal 32

osStatus_t osKernelInitialize(void);
osStatus_t osKernelStart(void);
int32_t osKernelLock(void);
int32_t osKernelUnlock(void);
int32_t osKernelRestoreLock(int32_t lock);
uint32_t osKernelGetTickCount(void);
osThreadId_t osThreadNew(osThreadFunc_t func, void *argument, const osThreadAttr_t *attr);
uint32_t osThreadFlagsSet(osThreadId_t thread_id, uint32_t flags);
uint32_t osThreadFlagsWait(uint32_t flags, uint32_t options, uint32_t timeout);
osStatus_t osDelay(uint32_t ticks);
osMessageQueueId_t osMessageQueueNew(uint32_t msg_count, uint32_t msg_size, const void *attr);
osStatus_t osMessageQueuePut(osMessageQueueId_t mq_id, const void *msg_ptr, uint8_t msg_prio, uint32_t timeout);
osStatus_t osMessageQueueGet(osMessageQueueId_t mq_id, void *msg_ptr, uint8_t *msg_prio, uint32_t timeout);
osEventFlagsId_t osEventFlagsNew(const void *attr);
uint32_t osEventFlagsSet(osEventFlagsId_t ef_id, uint32_t flags);
uint32_t osEventFlagsWait(osEventFlagsId_t ef_id, uint32_t flags, uint32_t options, uint32_t timeout);
osMutexId_t osMutexNew(const void *attr);
osStatus_t osMutexAcquire(osMutexId_t mutex_id, uint32_t timeout);
osStatus_t osMutexRelease(osMutexId_t mutex_id);

#endif
