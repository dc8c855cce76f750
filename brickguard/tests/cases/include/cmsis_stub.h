/* A minimal CMSIS / FreeRTOS / Zephyr stand-in for the rule fixtures. */
#ifndef CMSIS_STUB_H
#define CMSIS_STUB_H
#include <stddef.h>
#include <stdint.h>

static inline void __disable_irq(void) { __asm volatile("cpsid i" ::: "memory"); }
static inline void __enable_irq(void) { __asm volatile("cpsie i" ::: "memory"); }
static inline uint32_t __get_PRIMASK(void)
{
    uint32_t r;
    __asm volatile("MRS %0, primask" : "=r"(r));
    return r;
}
static inline void __set_PRIMASK(uint32_t m) { __asm volatile("MSR primask, %0" : : "r"(m) : "memory"); }

void vPortEnterCritical(void);
void vPortExitCritical(void);
#define portENTER_CRITICAL() vPortEnterCritical()
#define portEXIT_CRITICAL() vPortExitCritical()
#define taskENTER_CRITICAL() portENTER_CRITICAL()
#define taskEXIT_CRITICAL() portEXIT_CRITICAL()

typedef void (*TaskFunction_t)(void *);
long xTaskCreate(TaskFunction_t fn, const char *name, uint16_t depth, void *arg, unsigned prio,
                 void **handle);
int request_irq(unsigned irq, void (*handler)(void), unsigned long flags, const char *name,
                void *dev);
void NVIC_SetVector(int irqn, uint32_t vector);
void *memcpy(void *dst, const void *src, size_t n);
void process(const uint8_t *data, uint32_t len);
#endif
