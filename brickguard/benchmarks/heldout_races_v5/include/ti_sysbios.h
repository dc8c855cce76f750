/* TI-RTOS (SYS/BIOS 6) on a TM4C129 (Cortex-M4F, 3 priority bits: values 0x00, 0x20 ... 0xE0),
 * the parts of <ti/sysbios/BIOS.h>, <ti/sysbios/hal/Hwi.h>, <knl/Swi.h>, <knl/Task.h>,
 * <knl/Clock.h>, <knl/Semaphore.h> this corpus uses.
 * - Inline, as in SYS/BIOS's family/arm/m3 Hwi (Hwi__prologue.h): Hwi_disable() raises BASEPRI to
 *   Hwi_disablePriority (0x20, the default) and returns the old BASEPRI; Hwi_restore(key) writes it
 *   back. A Hwi created with priority 0x00 (below Hwi_disablePriority) is a zero-latency interrupt:
 *   Hwi_disable never masks it (and it must not call SYS/BIOS).
 * - Body-less, as in the SYS/BIOS library: Swi_disable/Swi_restore (stop Swis and Clock functions,
 *   mask no Hwi), Task_disable/Task_restore (stop task switching only), Hwi_create,
 *   Hwi_enableInterrupt, Clock_create/Clock_start, Semaphore_*, Task_create, BIOS_start.
 * - Clock functions run in the Clock Swi (Swi context): a Hwi preempts them, a Task does not run
 *   while they do; Swis of equal priority do not preempt each other. */
#ifndef TI_SYSBIOS_H
#define TI_SYSBIOS_H
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

typedef unsigned int UInt;
typedef int Int;
typedef uintptr_t UArg;
typedef uint32_t UInt32;
typedef uint16_t UInt16;
typedef uint8_t UInt8;
typedef bool Bool;
typedef void *Error_Block;
#define TRUE true
#define FALSE false
#define BIOS_WAIT_FOREVER (~(0U))

#define Hwi_disablePriority 0x20U
static inline UInt Hwi_disable(void)
{
    UInt key;
    __asm__ volatile("mrs %0, basepri\n\tmsr basepri, %1" : "=&r"(key) : "r"(Hwi_disablePriority) : "memory");
    return key;
}
static inline void Hwi_restore(UInt key) { __asm__ volatile("msr basepri, %0" : : "r"(key) : "memory"); }

typedef struct Hwi_Struct *Hwi_Handle;
typedef void (*Hwi_FuncPtr)(UArg arg);
typedef struct {
    UArg arg;
    Int priority;
    Bool enableInt;
} Hwi_Params;
void Hwi_Params_init(Hwi_Params *prms);
Hwi_Handle Hwi_create(Int intNum, Hwi_FuncPtr hwiFxn, const Hwi_Params *prms, Error_Block *eb);
void Hwi_enableInterrupt(UInt intNum);
void Hwi_disableInterrupt(UInt intNum);

UInt Swi_disable(void);
void Swi_restore(UInt key);
typedef struct Swi_Struct *Swi_Handle;
typedef void (*Swi_FuncPtr)(UArg arg0, UArg arg1);
typedef struct {
    UInt priority;
} Swi_Params;
void Swi_Params_init(Swi_Params *prms);
Swi_Handle Swi_create(Swi_FuncPtr swiFxn, const Swi_Params *prms, Error_Block *eb);
void Swi_post(Swi_Handle handle);

UInt Task_disable(void);
void Task_restore(UInt key);
typedef struct Task_Struct *Task_Handle;
typedef void (*Task_FuncPtr)(UArg arg0, UArg arg1);
typedef struct {
    Int priority;
    size_t stackSize;
} Task_Params;
void Task_Params_init(Task_Params *prms);
Task_Handle Task_create(Task_FuncPtr fxn, const Task_Params *prms, Error_Block *eb);
void Task_sleep(UInt32 nticks);

typedef struct Clock_Struct *Clock_Handle;
typedef void (*Clock_FuncPtr)(UArg arg);
typedef struct {
    UInt32 period;
    Bool startFlag;
    UArg arg;
} Clock_Params;
void Clock_Params_init(Clock_Params *prms);
Clock_Handle Clock_create(Clock_FuncPtr fxn, UInt32 timeout, const Clock_Params *prms, Error_Block *eb);
void Clock_start(Clock_Handle handle);
UInt32 Clock_getTicks(void);

typedef struct Semaphore_Struct *Semaphore_Handle;
Semaphore_Handle Semaphore_create(Int count, const void *prms, Error_Block *eb);
void Semaphore_post(Semaphore_Handle sem);
Bool Semaphore_pend(Semaphore_Handle sem, UInt32 timeout);

void BIOS_start(void);

/* TivaWare register access and device numbers used next to SYS/BIOS */
#define HWREG(x) (*((volatile uint32_t *)(x)))
#define INT_GPIOA 16
#define INT_UART0 21
#define INT_TIMER0A 35
#define INT_TIMER1A 37
#define INT_ADC0SS0 30
#define TIMER0_BASE 0x40030000U
#define TIMER1_BASE 0x40031000U
#define UART0_BASE 0x4000C000U
#define GPIO_PORTA_BASE 0x40058000U
#define ADC0_BASE 0x40038000U
#define TIMER_TIMA_TIMEOUT 0x00000001U
#define UART_INT_RX 0x010U
#define UART_INT_RT 0x040U
void TimerIntClear(uint32_t ui32Base, uint32_t ui32IntFlags);
uint32_t TimerValueGet(uint32_t ui32Base, uint32_t ui32Timer);
void UARTIntClear(uint32_t ui32Base, uint32_t ui32IntFlags);
uint32_t UARTIntStatus(uint32_t ui32Base, bool bMasked);
bool UARTCharsAvail(uint32_t ui32Base);
int32_t UARTCharGetNonBlocking(uint32_t ui32Base);
void UARTCharPut(uint32_t ui32Base, unsigned char ucData);
void UARTIntEnable(uint32_t ui32Base, uint32_t ui32IntFlags);
void GPIOIntClear(uint32_t ui32Port, uint32_t ui32IntFlags);
int32_t GPIOPinRead(uint32_t ui32Port, uint8_t ui8Pins);
uint32_t QEIPositionGet(uint32_t ui32Base);
void motor_set_duty(int32_t duty);
void System_printf(const char *fmt, ...);
#endif
