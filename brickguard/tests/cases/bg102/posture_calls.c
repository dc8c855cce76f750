/* Interrupt state calls with no body here, read by their words: the result of
   ``tx_interrupt_control(TX_INT_DISABLE)`` is the posture before, and the same call given it back
   restores it (ThreadX); ``flags = up_irq_save(); ... up_irq_restore(flags);`` likewise (NuttX).
   A mutex orders threads only, and a call whose result is thrown away saves nothing: no
   section. */
#include "cmsis_stub.h"

#define TX_INT_DISABLE 1
#define TX_INT_ENABLE 0
unsigned tx_interrupt_control(unsigned new_posture);
unsigned tx_mutex_get(void *mutex, unsigned long wait);
unsigned tx_mutex_put(void *mutex);
uint32_t up_irq_save(void);
void up_irq_restore(uint32_t flags);
uint32_t irq_lock_stats(void);
void irq_unlock_stats(uint32_t token);

volatile uint32_t pending, other, third, fourth;
static int lock;

void USART1_IRQHandler(void)
{
    pending++;
    other++;
    third++;
    fourth++;
}

int main(void)
{
    __enable_irq();
    for (;;) {
        unsigned posture = tx_interrupt_control(TX_INT_DISABLE);
        pending--;
        (void)tx_interrupt_control(posture);
        (void)tx_mutex_get(&lock, 0xFFFFFFFFu);
        other--;                         /* expect: BG102 */
        (void)tx_mutex_put(&lock);
        uint32_t flags = up_irq_save();
        third--;
        up_irq_restore(flags);
        (void)irq_lock_stats();
        fourth--;                        /* expect: BG102 */
        irq_unlock_stats(flags);
    }
}
