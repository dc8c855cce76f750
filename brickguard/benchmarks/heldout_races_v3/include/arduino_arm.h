/* The Arduino core API as an ARM (Cortex-M4) core exposes it to C, trimmed: noInterrupts() and
 * interrupts() are __disable_irq()/__enable_irq(); attachInterrupt's callback runs in the port's
 * external-interrupt handler; sysTickHook() is called from the core's SysTick_Handler every
 * millisecond (return 0 to let the core go on). setup() and loop() are called by the core's main. */
#ifndef ARDUINO_ARM_H
#define ARDUINO_ARM_H

#include <stdbool.h>
#include <stdint.h>

typedef enum { SysTick_IRQn = -1, EIC_IRQn = 4, TC4_IRQn = 20, TC5_IRQn = 21 } IRQn_Type;
#define __NVIC_PRIO_BITS 3U
#include "armv7m_core.h"

#define noInterrupts() __disable_irq()
#define interrupts() __enable_irq()

#define LOW 0x0
#define HIGH 0x1
#define INPUT 0x0
#define OUTPUT 0x1
#define INPUT_PULLUP 0x2
#define CHANGE 2
#define FALLING 3
#define RISING 4
#define digitalPinToInterrupt(p) (p)

typedef void (*voidFuncPtr)(void);
void pinMode(uint32_t pin, uint32_t mode);
int digitalRead(uint32_t pin);
void digitalWrite(uint32_t pin, uint32_t val);
void attachInterrupt(uint32_t pin, voidFuncPtr callback, uint32_t mode);
void detachInterrupt(uint32_t pin);
uint32_t millis(void);
uint32_t micros(void);
void delay(uint32_t ms);
int sysTickHook(void);

/* Serial is a C++ object; these C shims stand in for Serial.print / Serial.println. */
void serial_begin(uint32_t baud);
void serial_print_u32(uint32_t v);
void serial_print_i32(int32_t v);
void serial_println(const char *s);

void setup(void);
void loop(void);

#endif
