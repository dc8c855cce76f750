/* Library critical sections with no body here, as an SDK's headers wrap them. A save routine
   named for the status register and called inside a macro (Mynewt's ``OS_ENTER_CRITICAL(sr)``
   for ``((sr) = os_arch_save_sr())``, TencentOS's ``do { cpsr = tos_cpu_cpsr_save(); } while
   (0)``) keeps the state it reads: a section, closed by the restore given that local back. An
   enter routine that gives nothing back but is told to disable interrupts by a named mode
   (KSDK's ``OSA_EnterCritical(kCriticalDisableInt)``) opens one that its exit given the same
   mode closes. Kept (races): the same enter told to lock the scheduler only
   (``kCriticalLockSched``), and a save routine whose result is thrown away. */
#include "cmsis_stub.h"

typedef uint32_t os_sr_t;
os_sr_t os_arch_save_sr(void);
void os_arch_restore_sr(os_sr_t sr);
#define OS_ENTER_CRITICAL(__os_sr) ((__os_sr) = os_arch_save_sr())
#define OS_EXIT_CRITICAL(__os_sr) (os_arch_restore_sr(__os_sr))
#define OS_ENTER_CRITICAL_DROPPED() ((void)os_arch_save_sr())

typedef uint32_t cpu_cpsr_t;
cpu_cpsr_t tos_cpu_cpsr_save(void);
void tos_cpu_cpsr_restore(cpu_cpsr_t cpsr);
#define TOS_CPU_CPSR_ALLOC() cpu_cpsr_t cpu_cpsr = (cpu_cpsr_t)0u
#define TOS_CPU_INT_DISABLE() do { cpu_cpsr = tos_cpu_cpsr_save(); } while (0)
#define TOS_CPU_INT_ENABLE() do { tos_cpu_cpsr_restore(cpu_cpsr); } while (0)

typedef enum { kCriticalLockSched = 0, kCriticalDisableInt = 1 } osa_critical_section_mode_t;
void OSA_EnterCritical(osa_critical_section_mode_t mode);
void OSA_ExitCritical(osa_critical_section_mode_t mode);

volatile uint32_t ticks, bytes, faults, sched, dropped;

void USART1_IRQHandler(void)
{
    ticks++;
    bytes++;
    faults++;
    sched++;
    dropped++;
}

int main(void)
{
    __enable_irq();
    for (;;) {
        os_sr_t sr;
        OS_ENTER_CRITICAL(sr);
        ticks = ticks - 1u;
        OS_EXIT_CRITICAL(sr);
        {
            TOS_CPU_CPSR_ALLOC();
            TOS_CPU_INT_DISABLE();
            bytes = bytes - 1u;
            TOS_CPU_INT_ENABLE();
        }
        OSA_EnterCritical(kCriticalDisableInt);
        faults = faults - 1u;
        OSA_ExitCritical(kCriticalDisableInt);
        OSA_EnterCritical(kCriticalLockSched);
        sched = sched - 1u;              /* expect: BG102 */
        OSA_ExitCritical(kCriticalLockSched);
        OS_ENTER_CRITICAL_DROPPED();
        dropped = dropped - 1u;          /* expect: BG102 */
        os_arch_restore_sr(0u);
    }
}
