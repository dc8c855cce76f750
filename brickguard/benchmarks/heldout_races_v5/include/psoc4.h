/* Cypress PSoC Creator 4.x project for a PSoC 4200 (Cortex-M0, 2 priority bits: 0 most urgent ..
 * 3), the parts of cytypes.h, CyLib.h, cyfitter and the generated component APIs this corpus uses
 * (component instance names are the programs': isr_Tick, isr_Pulse, Counter, ADC, UART, Pin_Door).
 * - Inline, as in cytypes.h / CyLib.h: CY_ISR / CY_ISR_PROTO, CyGlobalIntEnable /
 *   CyGlobalIntDisable (CPSIE i / CPSID i).
 * - Body-less, as in CyLib.c (an assembly function there): CyEnterCriticalSection() (returns the
 *   old PRIMASK and sets it) and CyExitCriticalSection(state); also every generated component
 *   function (isr_X_StartEx, isr_X_SetPriority, Counter_*, ADC_*, UART_*, Pin_*_Read). */
#ifndef PSOC4_H
#define PSOC4_H
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
typedef uint8_t uint8;
typedef uint16_t uint16;
typedef uint32_t uint32;
typedef int16_t int16;
typedef int32_t int32;
typedef void (*cyisraddress)(void);
#define CY_ISR(FuncName) void FuncName(void)
#define CY_ISR_PROTO(FuncName) void FuncName(void)
#define CyGlobalIntEnable do { __asm volatile("CPSIE i" : : : "memory"); } while (0)
#define CyGlobalIntDisable do { __asm volatile("CPSID i" : : : "memory"); } while (0)
uint8 CyEnterCriticalSection(void);
void CyExitCriticalSection(uint8 savedIntrStatus);
void CyDelay(uint32 milliseconds);

void isr_Tick_StartEx(cyisraddress address);
void isr_Tick_SetPriority(uint32 priority);
void isr_Tick_Disable(void);
void isr_Tick_Enable(void);
void isr_Pulse_StartEx(cyisraddress address);
void isr_Pulse_SetPriority(uint32 priority);
void isr_Pulse_Disable(void);
void isr_Pulse_Enable(void);
void isr_Adc_StartEx(cyisraddress address);
void isr_Adc_SetPriority(uint32 priority);
void isr_Adc_Disable(void);
void isr_Adc_Enable(void);
void isr_Rx_StartEx(cyisraddress address);
void isr_Rx_SetPriority(uint32 priority);

void Counter_Start(void);
uint32 Counter_ReadCounter(void);
uint32 Counter_GetInterruptSource(void);
void Counter_ClearInterrupt(uint32 interruptMask);
#define Counter_INTR_MASK_TC 0x01U
void Timer_Start(void);
void Timer_ClearInterrupt(uint32 interruptMask);
#define Timer_INTR_MASK_TC 0x01U
void ADC_Start(void);
void ADC_StartConvert(void);
int16 ADC_GetResult16(uint32 chan);
uint32 ADC_SAR_INTR_REG_read(void);
void ADC_ClearEoc(void);
void UART_Start(void);
void UART_UartPutString(const char *string);
uint32 UART_UartGetChar(void);
uint32 UART_GetRxInterruptSource(void);
void UART_ClearRxInterruptSource(uint32 interruptSource);
#define UART_INTR_RX_NOT_EMPTY 0x04U
uint8 Pin_Door_Read(void);
void Pin_Door_ClearInterrupt(void);
void Pin_Led_Write(uint8 value);
void Pwm_WriteCompare(uint32 compare);
#endif
