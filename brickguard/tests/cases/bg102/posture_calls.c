/* An interrupt posture call with no body here, read by its words: the result of
   ``tx_interrupt_control(TX_INT_DISABLE)`` is the posture before, and the same call given it back
   restores it (ThreadX). A mutex orders threads only: no section. */
#include "cmsis_stub.h"

#define TX_INT_DISABLE 1
#define TX_INT_ENABLE 0
unsigned tx_interrupt_control(unsigned new_posture);
unsigned tx_mutex_get(void *mutex, unsigned long wait);
unsigned tx_mutex_put(void *mutex);

volatile uint32_t pending, other;
static int lock;

void USART1_IRQHandler(void)
{
    pending++;
    other++;
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
    }
}
