/* TI MSP432-driverlib-style names (Interrupt_*, Timer32_*, GPIO_*, UART_*, ADC14_*), declared
 * here so the programs parse without the driverlib. Written for this corpus.
 * Interrupt_setPriority takes the 8-bit register value: MSP432 implements the top 3 bits, so the
 * levels are 0x00, 0x20, ..., 0xE0 (0x20 is level 1; lower is more urgent), and
 * Interrupt_setPriorityMask(x) writes BASEPRI = x (masks levels numerically >= x; 0 masks none). */
#ifndef HO2_TI_MINI_H
#define HO2_TI_MINI_H

typedef enum {
    SysTick_IRQn = -1,
    EUSCIA0_IRQn = 16,
    ADC14_IRQn = 24,
    T32_INT1_IRQn = 25,
    T32_INT2_IRQn = 26,
    PORT1_IRQn = 35
} IRQn_Type;

#define __NVIC_PRIO_BITS 3U
#include "cm_core.h"

#define INT_EUSCIA0 (EUSCIA0_IRQn + 16)
#define INT_ADC14 (ADC14_IRQn + 16)
#define INT_T32_INT1 (T32_INT1_IRQn + 16)
#define INT_T32_INT2 (T32_INT2_IRQn + 16)
#define INT_PORT1 (PORT1_IRQn + 16)

void Interrupt_enableInterrupt(uint32_t interruptNumber);
void Interrupt_disableInterrupt(uint32_t interruptNumber);
bool Interrupt_enableMaster(void);
bool Interrupt_disableMaster(void);
void Interrupt_setPriority(uint32_t interruptNumber, uint8_t priority);
void Interrupt_setPriorityMask(uint8_t priorityMask);

#define TIMER32_0_BASE 0x4000C000UL
#define TIMER32_1_BASE 0x4000C020UL
void Timer32_clearInterruptFlag(uint32_t timer);
void Timer32_startTimer(uint32_t timer, bool oneShot);
uint32_t Timer32_getValue(uint32_t timer);

#define GPIO_PORT_P1 1U
#define GPIO_PIN1 0x02U
#define GPIO_PIN4 0x10U
uint16_t GPIO_getEnabledInterruptStatus(uint_fast8_t port);
void GPIO_clearInterruptFlag(uint_fast8_t port, uint_fast16_t pins);

#define EUSCI_A0_BASE 0x40001000UL
#define EUSCI_A_UART_RECEIVE_INTERRUPT_FLAG 0x01U
#define EUSCI_A_UART_RECEIVE_ERROR_FLAG 0x10U
uint_fast8_t UART_getEnabledInterruptStatus(uint32_t moduleInstance);
void UART_clearInterruptFlag(uint32_t moduleInstance, uint_fast8_t mask);
uint8_t UART_receiveData(uint32_t moduleInstance);
void UART_transmitData(uint32_t moduleInstance, uint_fast8_t data);

#define ADC_MEM0 0x01U
uint_fast16_t ADC14_getResult(uint32_t memorySelect);
uint64_t ADC14_getEnabledInterruptStatus(void);
void ADC14_clearInterruptFlag(uint_fast64_t mask);
bool ADC14_toggleConversionTrigger(void);

void board_setup(void);
void report_u32(uint32_t v);
void handle_frame(const uint8_t *frame, uint32_t len);

#endif
