/* LDREX/STREX: the exclusive store fails when an interrupt comes between it and the exclusive
   load (exception entry and exit clear the monitor); only a store whose result is retried makes
   the update atomic. CMSIS's cmsis_gcc.h defines these as inline functions. */
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

volatile uint32_t events, drops, flags;

void TIM2_IRQHandler(void)
{
    events++;
    drops++;
    flags |= 1u;
}

static void count_unchecked(void)
{
    uint32_t v = __LDREXW(&events);
    __STREXW(v + 1u, &events);        /* expect: BG106 `events` */
}

static void count_cast(void)
{
    uint32_t v = __LDREXW(&drops) + 1u;
    (void)__STREXW(v, &drops);        /* expect: BG106 `drops` */
}

static void count_retry(void)
{
    uint32_t v;
    do {
        v = __LDREXW(&events) + 1u;
    } while (__STREXW(v, &events));   /* retried until it stores: atomic */
}

static void set_flag(void)
{
    uint32_t v, failed;
    for (;;) {
        v = __LDREXW(&flags) | 2u;
        failed = __STREXW(v, &flags); /* the result is kept and tested */
        if (!failed) {
            break;
        }
    }
}

int main(void)
{
    __enable_irq();
    count_unchecked();
    count_cast();
    count_retry();
    set_flag();
    return 0;
}

/* A retry loop inside a macro (CMSIS's stm32f4xx.h ATOMIC_SET_BIT): the macro's text is not
   the call's, and its loop checks the result. */
#define ATOMIC_SET_BIT(REG, BIT)                                 \
    do {                                                         \
        uint32_t val;                                            \
        do {                                                     \
            val = __LDREXW((volatile uint32_t *)&(REG)) | (BIT); \
        } while ((__STREXW(val, (volatile uint32_t *)&(REG))) != 0U); \
    } while (0)

volatile uint32_t cr3;

void enable_dma_request(void)
{
    ATOMIC_SET_BIT(cr3, 1u << 7);
}
