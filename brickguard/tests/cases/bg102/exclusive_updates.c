/* Handlers that set event bits with a retried LDREX/STREX helper (Mbed's
   core_util_atomic_fetch_or_u32): each update is atomic against what interrupts it, but it is
   still a write, and a task's plain read-modify-write of the same word loses it when the
   handler's update comes between the task's load and store (``pending``). A task that clears
   with the same exclusive helper is safe (``ready``): an exception between its load and store
   makes the store fail and the loop run again on the new value. */
#include "cmsis_stub.h"

static inline uint32_t __LDREXW(volatile uint32_t *addr)
{
    uint32_t r;
    __asm volatile("ldrex %0, %1" : "=r"(r) : "Q"(*addr));
    return r;
}
static inline uint32_t __STREXW(uint32_t value, volatile uint32_t *addr)
{
    uint32_t r;
    __asm volatile("strex %0, %2, %1" : "=&r"(r), "=Q"(*addr) : "r"(value));
    return r;
}

static inline uint32_t bits_or(volatile uint32_t *word, uint32_t m)
{
    uint32_t old;
    do {
        old = __LDREXW(word);
    } while (__STREXW(old | m, word) != 0u);
    return old;
}

static inline uint32_t bits_and(volatile uint32_t *word, uint32_t m)
{
    uint32_t old;
    do {
        old = __LDREXW(word);
    } while (__STREXW(old & m, word) != 0u);
    return old;
}

void handle(uint32_t ev);
static volatile uint32_t pending, ready;

void EXTI0_IRQHandler(void)
{
    (void)bits_or(&pending, 1u);
}

void EXTI1_IRQHandler(void)
{
    (void)bits_or(&ready, 2u);
}

int main(void)
{
    __enable_irq();
    for (;;) {
        uint32_t a = pending;
        handle(a);
        pending &= ~a;                   /* expect: BG102 `pending` */
        uint32_t b = ready;
        handle(b);
        (void)bits_and(&ready, ~b);
    }
}
