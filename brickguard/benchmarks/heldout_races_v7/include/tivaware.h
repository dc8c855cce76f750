/* TI TivaWare (driverlib) subset for a TM4C123GH6PM (Cortex-M4F), written for this corpus with
 * TivaWare's names. __NVIC_PRIO_BITS is 3: IntPrioritySet takes the priority in the top three bits
 * of a byte (0x00 most urgent, then 0x20, 0x40 ... 0xE0).
 * Inline (bodies here): the CMSIS-Core intrinsics (cmsis_core.h), HWREG.
 * Body-less library functions, declared only, with their documented effect:
 *   IntMasterDisable(): sets PRIMASK (every interrupt masked); returns true if interrupts were
 *     already disabled. IntMasterEnable(): clears PRIMASK; returns the previous state likewise.
 *   IntRegister(ui32Interrupt, pfn): puts pfn into the RAM vector table, so pfn runs as that
 *     interrupt's handler. UARTIntRegister / TimerIntRegister / GPIOIntRegister / ADCIntRegister /
 *     uDMAIntRegister: IntRegister for that peripheral's vector AND IntEnable of it.
 *   IntEnable / IntDisable(ui32Interrupt): enable / disable one interrupt in the NVIC.
 *   IntPrioritySet(ui32Interrupt, ui8Priority): the interrupt's priority (top 3 bits used).
 *   IntPriorityMaskSet(ui32PriorityMask): writes BASEPRI: every interrupt whose priority value is
 *     numerically >= the mask is blocked; 0 blocks nothing. IntPriorityMaskGet() reads it back.
 *   UARTIntEnable / UARTIntClear / UARTIntStatus, UARTCharGetNonBlocking (-1 if the FIFO is empty),
 *     UARTCharPutNonBlocking (false if the FIFO is full), UARTCharsAvail, UARTSpaceAvail.
 *   TimerConfigure / TimerLoadSet / TimerEnable / TimerIntEnable / TimerIntClear,
 *     TimerValueGet (the timer's current count).
 *   GPIOIntEnable / GPIOIntClear / GPIOIntStatus / GPIOPinRead / GPIOPinWrite, GPIOIntTypeSet.
 *   ADCSequenceConfigure / ADCSequenceEnable / ADCSequenceDMAEnable / ADCIntClear /
 *     ADCProcessorTrigger / ADCSequenceDataGet (copies the sequencer FIFO out, returns the count).
 *   uDMAEnable / uDMAControlBaseSet / uDMAChannelControlSet / uDMAChannelAttributeDisable.
 *   uDMAChannelTransferSet(ch | UDMA_PRI_SELECT, mode, src, dst, n): programs a transfer; the
 *     transfer runs (the uDMA writes dst, with no CPU) once uDMAChannelEnable(ch) is called; the
 *     channel disables itself when the n items are done and the peripheral's interrupt fires.
 *   uDMAChannelIsEnabled(ch): true while that transfer is still running.
 *   On the TM4C123 the completion of a peripheral's uDMA transfer is signalled on that
 *   peripheral's own interrupt (ADC0SS0 for channel 14); the sequencer's per-sample interrupt
 *   stays off unless ADCIntEnable is called (none of the programs calls it).
 *   SysCtlClockSet / SysCtlPeripheralEnable / SysCtlDelay(n) (3*n cycles), SysCtlClockGet. */
#ifndef TIVAWARE_H
#define TIVAWARE_H
#define __NVIC_PRIO_BITS 3U
#include "cmsis_core.h"
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

#define HWREG(x) (*((volatile uint32_t *)(x)))
#define INT_GPIOA 16U
#define INT_GPIOF 46U
#define INT_UART0 21U
#define INT_UART1 22U
#define INT_ADC0SS0 30U
#define INT_ADC0SS3 33U
#define INT_TIMER0A 35U
#define INT_TIMER1A 37U
#define INT_TIMER2A 39U
#define INT_WTIMER0A 110U
#define UART0_BASE 0x4000C000UL
#define UART1_BASE 0x4000D000UL
#define TIMER0_BASE 0x40030000UL
#define TIMER1_BASE 0x40031000UL
#define TIMER2_BASE 0x40032000UL
#define WTIMER0_BASE 0x40036000UL
#define GPIO_PORTA_BASE 0x40004000UL
#define GPIO_PORTF_BASE 0x40025000UL
#define ADC0_BASE 0x40038000UL
#define GPIO_PIN_0 0x01U
#define GPIO_PIN_1 0x02U
#define GPIO_PIN_4 0x10U
#define GPIO_FALLING_EDGE 0x0U
#define GPIO_BOTH_EDGES 0x1U
#define UART_INT_RX 0x010U
#define UART_INT_RT 0x040U
#define UART_INT_TX 0x020U
#define TIMER_A 0x00FFU
#define TIMER_CFG_PERIODIC 0x00000022U
#define TIMER_TIMA_TIMEOUT 0x01U
#define ADC_TRIGGER_TIMER 0x5U
#define ADC_TRIGGER_PROCESSOR 0x0U
#define UDMA_CHANNEL_ADC0 14U
#define UDMA_PRI_SELECT 0x00U
#define UDMA_MODE_BASIC 0x1U
#define UDMA_SIZE_16 0x11000000U
#define UDMA_SRC_INC_NONE 0x0C000000U
#define UDMA_DST_INC_16 0x40000000U
#define UDMA_ARB_4 0x8000U
#define ADC_O_SSFIFO0 0x048U

bool IntMasterDisable(void);
bool IntMasterEnable(void);
void IntRegister(uint32_t ui32Interrupt, void (*pfnHandler)(void));
void IntEnable(uint32_t ui32Interrupt);
void IntDisable(uint32_t ui32Interrupt);
void IntPrioritySet(uint32_t ui32Interrupt, uint8_t ui8Priority);
void IntPriorityMaskSet(uint32_t ui32PriorityMask);
uint32_t IntPriorityMaskGet(void);
void UARTIntRegister(uint32_t ui32Base, void (*pfnHandler)(void));
void UARTIntEnable(uint32_t ui32Base, uint32_t ui32IntFlags);
void UARTIntClear(uint32_t ui32Base, uint32_t ui32IntFlags);
uint32_t UARTIntStatus(uint32_t ui32Base, bool bMasked);
int32_t UARTCharGetNonBlocking(uint32_t ui32Base);
bool UARTCharPutNonBlocking(uint32_t ui32Base, unsigned char ucData);
bool UARTCharsAvail(uint32_t ui32Base);
bool UARTSpaceAvail(uint32_t ui32Base);
void UARTConfigSetExpClk(uint32_t ui32Base, uint32_t ui32UARTClk, uint32_t ui32Baud, uint32_t ui32Config);
void TimerConfigure(uint32_t ui32Base, uint32_t ui32Config);
void TimerLoadSet(uint32_t ui32Base, uint32_t ui32Timer, uint32_t ui32Value);
void TimerEnable(uint32_t ui32Base, uint32_t ui32Timer);
void TimerIntRegister(uint32_t ui32Base, uint32_t ui32Timer, void (*pfnHandler)(void));
void TimerIntEnable(uint32_t ui32Base, uint32_t ui32IntFlags);
void TimerIntClear(uint32_t ui32Base, uint32_t ui32IntFlags);
uint32_t TimerValueGet(uint32_t ui32Base, uint32_t ui32Timer);
void GPIOIntRegister(uint32_t ui32Port, void (*pfnHandler)(void));
void GPIOIntTypeSet(uint32_t ui32Port, uint8_t ui8Pins, uint32_t ui32IntType);
void GPIOIntEnable(uint32_t ui32Port, uint32_t ui32IntFlags);
void GPIOIntClear(uint32_t ui32Port, uint32_t ui32IntFlags);
uint32_t GPIOIntStatus(uint32_t ui32Port, bool bMasked);
int32_t GPIOPinRead(uint32_t ui32Port, uint8_t ui8Pins);
void GPIOPinWrite(uint32_t ui32Port, uint8_t ui8Pins, uint8_t ui8Val);
void ADCSequenceConfigure(uint32_t ui32Base, uint32_t ui32SequenceNum, uint32_t ui32Trigger, uint32_t ui32Priority);
void ADCSequenceEnable(uint32_t ui32Base, uint32_t ui32SequenceNum);
void ADCSequenceDMAEnable(uint32_t ui32Base, uint32_t ui32SequenceNum);
void ADCIntRegister(uint32_t ui32Base, uint32_t ui32SequenceNum, void (*pfnHandler)(void));
void ADCIntEnable(uint32_t ui32Base, uint32_t ui32SequenceNum);
void ADCIntClear(uint32_t ui32Base, uint32_t ui32SequenceNum);
void ADCProcessorTrigger(uint32_t ui32Base, uint32_t ui32SequenceNum);
int32_t ADCSequenceDataGet(uint32_t ui32Base, uint32_t ui32SequenceNum, uint32_t *pui32Buffer);
void uDMAEnable(void);
void uDMAControlBaseSet(void *pControlTable);
void uDMAChannelAttributeDisable(uint32_t ui32ChannelNum, uint32_t ui32Attr);
void uDMAChannelControlSet(uint32_t ui32ChannelStructIndex, uint32_t ui32Control);
void uDMAChannelTransferSet(uint32_t ui32ChannelStructIndex, uint32_t ui32Mode, void *pvSrcAddr, void *pvDstAddr, uint32_t ui32TransferSize);
void uDMAChannelEnable(uint32_t ui32ChannelNum);
bool uDMAChannelIsEnabled(uint32_t ui32ChannelNum);
void SysCtlPeripheralEnable(uint32_t ui32Peripheral);
uint32_t SysCtlClockGet(void);
void SysCtlDelay(uint32_t ui32Count);
void UARTprintf(const char *pcString, ...);
#define SYSCTL_PERIPH_UART0 0xf0001800U
#define SYSCTL_PERIPH_TIMER0 0xf0000400U
#define SYSCTL_PERIPH_TIMER1 0xf0000401U
#define SYSCTL_PERIPH_GPIOF 0xf0000805U
#define SYSCTL_PERIPH_ADC0 0xf0003800U
#define SYSCTL_PERIPH_UDMA 0xf0000c00U
#define UART_CONFIG_WLEN_8 0x60U
#endif
