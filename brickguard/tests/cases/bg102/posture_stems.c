/* A body-less save routine and its restore whose names differ by more than the save/restore
   word: LiteOS's ``save = LOS_IntLock(); ...; LOS_IntRestore(save);`` ("Int": the SDKs' short
   word for interrupt; "Lock" saves, "Restore" gives the state back). The rest of the two names
   is the same, so the restore closes the section the lock opened; Contiki's ``st =
   int_master_read_and_disable(); ...; int_master_status_set(st);`` gives the saved state back
   to a routine of the same family (two words in common, one of them "int"). Kept (races): the same read
   and clear with a scheduler lock of the same SDK (``LOS_TaskLock``: interrupts still run), and
   a lock whose result is thrown away. */
#include "cmsis_stub.h"

uint32_t LOS_IntLock(void);
void LOS_IntRestore(uint32_t save);
void LOS_TaskLock(void);
void LOS_TaskUnlock(void);
typedef uint32_t int_master_status_t;
int_master_status_t int_master_read_and_disable(void);
void int_master_status_set(int_master_status_t status);
void use(uint32_t n);

volatile uint32_t pulses, taken, dropped, presses;

void EXTI3_IRQHandler(void)
{
    pulses++;
    taken++;
    dropped++;
    presses++;
}

int main(void)
{
    __enable_irq();
    for (;;) {
        uint32_t p, save;
        save = LOS_IntLock();
        p = pulses;
        pulses = 0u;
        LOS_IntRestore(save);
        use(p);

        int_master_status_t st = int_master_read_and_disable();
        p = presses;
        presses = 0u;
        int_master_status_set(st);
        use(p);

        LOS_TaskLock();
        p = taken;
        taken = 0u;                    /* expect: BG101 */
        LOS_TaskUnlock();
        use(p);

        (void)LOS_IntLock();
        dropped = dropped - 1u;        /* expect: BG102 */
        use(dropped);
    }
}
